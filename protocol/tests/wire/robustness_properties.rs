//! Property: no input makes a decoder, the dialect detector or the SSE parser panic:
//! arbitrary bytes, arbitrary JSON, and valid documents with one part mangled.

use crate::support::arbitrary;
use meshsim_protocol::sse::{SseParser, frame};
use meshsim_protocol::{Dialect, Method, detect};
use proptest::prelude::*;
use serde_json::Value;

/// Runs every decoder of every dialect on `json`; errors must name a field.
fn decode_everything(json: &Value) {
    let _ = detect::detect(json);
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        for error in [
            codec.decode_request(json).err(),
            codec.decode_card(json).err(),
        ]
        .into_iter()
        .flatten()
        {
            assert!(!error.field.is_empty(), "{error}");
        }
        for method in Method::ALL.map(Some).into_iter().chain([None]) {
            if let Err(error) = codec.decode_response(json, method) {
                assert!(
                    !error.field.is_empty() && error.dialect == dialect,
                    "{error}"
                );
            }
        }
    }
}

/// Every path into `value`, as JSON pointers.
fn pointers(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = format!("{here}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(path.clone());
                pointers(child, path, out);
            }
        }
        Value::Array(items) => {
            for (n, child) in items.iter().enumerate() {
                let path = format!("{here}/{n}");
                out.push(path.clone());
                pointers(child, path, out);
            }
        }
        _ => {}
    }
}

/// A valid document of some dialect, encoded from an arbitrary model value.
fn valid_document() -> impl Strategy<Value = Value> {
    proptest::sample::select(Dialect::ALL.to_vec()).prop_flat_map(|dialect| {
        let codec = dialect.codec();
        prop_oneof![
            arbitrary::request(dialect)
                .prop_map(move |request| codec.encode_request(&request).unwrap().value),
            arbitrary::response(dialect).prop_map(move |(method, response)| codec
                .encode_response_to(method, &response)
                .unwrap()
                .value),
            arbitrary::card(dialect).prop_map(move |card| codec.encode_card(&card).unwrap().value),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(json) = serde_json::from_slice::<Value>(&bytes) {
            decode_everything(&json);
        }
        let mut parser = SseParser::new(64);
        parser.push(&bytes);
        while parser.next_event().is_some() {}
    }

    #[test]
    fn arbitrary_json_never_panics(json in arbitrary::json()) {
        decode_everything(&json);
        decode_everything(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": json.clone()}));
        decode_everything(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": json}));
    }

    #[test]
    fn mangled_documents_never_panic(
        document in valid_document(),
        pick in any::<proptest::sample::Index>(),
        replacement in arbitrary::json(),
        delete in any::<bool>(),
    ) {
        let mut document = document;
        let mut paths = Vec::new();
        pointers(&document, String::new(), &mut paths);
        if !paths.is_empty() {
            let path = &paths[pick.index(paths.len())];
            let (parent, key) = path.rsplit_once('/').unwrap();
            match document.pointer_mut(if parent.is_empty() { "" } else { parent }) {
                Some(Value::Object(map)) if delete => {
                    map.remove(&key.replace("~1", "/").replace("~0", "~"));
                }
                _ => *document.pointer_mut(path).unwrap() = replacement,
            }
        }
        decode_everything(&document);
    }

    #[test]
    fn sse_frames_parse_back_under_any_chunking(
        payloads in proptest::collection::vec("[^\r]{0,40}", 1..5),
        noise in proptest::collection::vec("[^\r\n]{0,10}", 0..3),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
    ) {
        let mut stream = String::new();
        for (n, payload) in payloads.iter().enumerate() {
            if let Some(comment) = noise.get(n) {
                stream.push_str(&format!(":{comment}\n\n"));
            }
            stream.push_str(&frame(payload));
        }
        let bytes = stream.as_bytes();
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
        cuts.sort();
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        let mut from = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            events.extend(parser.feed(&bytes[from..cut]));
            from = cut;
        }
        let data: Vec<String> = events.into_iter().map(|event| event.unwrap().data).collect();
        prop_assert_eq!(data, payloads);
    }
}
