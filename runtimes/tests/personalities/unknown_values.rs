//! A request carrying values outside the spec: the codecs keep an unknown role or part kind
//! (reading tolerantly), but no personality can act on one, so each refuses the message with
//! -32602 naming what it could not read, in every dialect.

use crate::support::{Client, Target};
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, ErrorCode, Part, PartContent, Role, UnknownPart};
use meshsim_runtimes::{BUILTIN_NAMES, Runtime, builtin};
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn every_personality_refuses_an_unknown_role_or_part_kind() {
    for name in BUILTIN_NAMES {
        for dialect in Dialect::ALL {
            let runtime = Runtime::new(
                builtin(name).unwrap(),
                dialect,
                Clock::fixed(Duration::ZERO),
                7,
            );
            let client = Client::new(Target::Router(runtime.router()), dialect);
            let task = (dialect == Dialect::V0_1).then_some("task-1");

            let mut params = client.message("hello", task);
            params.message.parts.push(Part {
                content: PartContent::Unknown(UnknownPart {
                    kind: "video".to_string(),
                    as_sent: match dialect {
                        Dialect::V1_0 => json!({"video": {}}),
                        Dialect::V0_3 => json!({"kind": "video", "video": {}}),
                        Dialect::V0_1 => json!({"type": "video", "video": {}}),
                    },
                }),
                metadata: None,
            });
            let error = client.send(params).await.error();
            assert_eq!(error.code, ErrorCode::InvalidParams, "{name} {dialect}");
            assert!(
                error
                    .message
                    .contains("parts[1]: unknown part kind `video`"),
                "{name} {dialect}: {}",
                error.message
            );

            let mut params = client.message("hello", task);
            params.message.role = Role::Unknown("UNRECOGNIZED".to_string());
            let error = client.send(params).await.error();
            assert_eq!(error.code, ErrorCode::InvalidParams, "{name} {dialect}");
            assert!(
                error.message.contains("unknown role `UNRECOGNIZED`"),
                "{name} {dialect}: {}",
                error.message
            );
        }
    }
}
