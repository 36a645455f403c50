//! Property: every model value a dialect can express survives encode-then-decode through
//! that dialect exactly, with no losses reported.

use crate::support::arbitrary;
use meshsim_protocol::{Dialect, ErrorCode, RpcResponse};
use proptest::prelude::*;
use serde_json::Value;

/// What decoding the encoding of `response` must give: v1.0 fills an error's missing
/// `data` with its ErrorInfo, and nothing else changes.
fn expected(dialect: Dialect, response: &RpcResponse) -> RpcResponse {
    let mut expected = response.clone();
    if let (Dialect::V1_0, Err(error)) = (dialect, &mut expected.outcome)
        && error.data.is_none()
    {
        error.data = Some(Value::Array(vec![ErrorCode::error_info(error.code)]));
    }
    expected
}

macro_rules! round_trips {
    ($name:ident, $dialect:expr) => {
        mod $name {
            use super::*;

            proptest! {
                #[test]
                fn requests(request in arbitrary::request($dialect)) {
                    let codec = $dialect.codec();
                    let encoded = codec.encode_request(&request).expect("expressible");
                    prop_assert_eq!(&encoded.losses, &vec![]);
                    prop_assert_eq!(codec.decode_request(&encoded.value).expect("decodes"), request);
                }

                #[test]
                fn responses((method, response) in arbitrary::response($dialect)) {
                    let codec = $dialect.codec();
                    let encoded = codec.encode_response_to(method, &response).expect("expressible");
                    prop_assert_eq!(&encoded.losses, &vec![]);
                    let decoded = codec.decode_response(&encoded.value, Some(method)).expect("decodes");
                    prop_assert_eq!(decoded, expected($dialect, &response));
                }

                #[test]
                fn cards(card in arbitrary::card($dialect)) {
                    let codec = $dialect.codec();
                    let encoded = codec.encode_card(&card).expect("expressible");
                    prop_assert_eq!(&encoded.losses, &vec![]);
                    prop_assert_eq!(codec.decode_card(&encoded.value).expect("decodes"), card);
                }
            }
        }
    };
}

round_trips!(v0_1, Dialect::V0_1);
round_trips!(v0_3, Dialect::V0_3);
round_trips!(v1_0, Dialect::V1_0);

proptest! {
    /// Values made for one dialect, sent through another: encoding either fails with a
    /// named reason or succeeds; when it reports no loss, decoding gives the value back.
    #[test]
    fn across_dialects_a_lossless_encoding_is_exact(
        (to, (method, response)) in (
            proptest::sample::select(Dialect::ALL.to_vec()),
            proptest::sample::select(Dialect::ALL.to_vec()),
        )
            .prop_flat_map(|(from, to)| (Just(to), arbitrary::response(from)))
    ) {
        let codec = to.codec();
        match codec.encode_response_to(method, &response) {
            Err(error) => prop_assert!(!error.what.is_empty() && error.dialect == to),
            Ok(encoded) if encoded.losses.is_empty() => {
                let decoded = codec.decode_response(&encoded.value, Some(method)).expect("decodes");
                prop_assert_eq!(decoded, expected(to, &response));
            }
            Ok(encoded) => prop_assert!(encoded.losses.iter().all(|loss| loss.dialect == to)),
        }
    }
}
