//! Methods a dialect defines that meshsim's runtimes do not serve: the push notification
//! config methods and the extended Agent Card. Each gets the error the spec assigns when the
//! Card does not declare the capability, instead of -32601 (the method exists):
//! `PushNotificationNotSupportedError` (-32003) for push configs, and
//! `UnsupportedOperationError` (-32004) for the extended Card (v1.0 specification, section 3.3.4: "If
//! `capabilities.extendedAgentCard` is false or not present ... MUST return
//! UnsupportedOperationError"). A Card that claims push notifications is a lie these
//! runtimes can be told to tell; the answer is still -32003, as no runtime here delivers.

use crate::personality::Personality;
use meshsim_protocol::{Dialect, ErrorCode, RpcError};

const PUSH_METHODS: [(Dialect, &str); 10] = [
    (Dialect::V0_1, "tasks/pushNotification/set"),
    (Dialect::V0_1, "tasks/pushNotification/get"),
    (Dialect::V0_3, "tasks/pushNotificationConfig/set"),
    (Dialect::V0_3, "tasks/pushNotificationConfig/get"),
    (Dialect::V0_3, "tasks/pushNotificationConfig/list"),
    (Dialect::V0_3, "tasks/pushNotificationConfig/delete"),
    (Dialect::V1_0, "CreateTaskPushNotificationConfig"),
    (Dialect::V1_0, "GetTaskPushNotificationConfig"),
    (Dialect::V1_0, "ListTaskPushNotificationConfigs"),
    (Dialect::V1_0, "DeleteTaskPushNotificationConfig"),
];

const EXTENDED_CARD_METHODS: [(Dialect, &str); 2] = [
    (Dialect::V0_3, "agent/getAuthenticatedExtendedCard"),
    (Dialect::V1_0, "GetExtendedAgentCard"),
];

/// The error answering `method` in `dialect`, if it is a method the dialect defines and the
/// runtime does not serve.
pub(crate) fn refusal(
    dialect: Dialect,
    method: &str,
    personality: &Personality,
) -> Option<RpcError> {
    let names = |table: &[(Dialect, &str)]| {
        table
            .iter()
            .any(|(spoken, name)| *spoken == dialect && *name == method)
    };
    if names(&PUSH_METHODS) {
        let claim = match personality.card.push_notifications {
            true => "its Card claims them, but",
            false => "its Card does not declare them, and",
        };
        return Some(RpcError::new(
            ErrorCode::PushNotificationNotSupported,
            format!(
                "push notifications are not supported: {claim} {} delivers none",
                personality.name
            ),
        ));
    }
    names(&EXTENDED_CARD_METHODS).then(|| {
        RpcError::new(
            ErrorCode::UnsupportedOperation,
            "the Card does not declare an extended agent card",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_methods_are_not_supported_in_their_own_dialect_only() {
        let personality = Personality::default();
        let refused = refusal(
            Dialect::V1_0,
            "CreateTaskPushNotificationConfig",
            &personality,
        );
        assert_eq!(
            refused.map(|error| error.code),
            Some(ErrorCode::PushNotificationNotSupported)
        );
        assert_eq!(
            refusal(
                Dialect::V0_3,
                "tasks/pushNotificationConfig/list",
                &personality
            )
            .map(|error| error.code),
            Some(ErrorCode::PushNotificationNotSupported)
        );
        assert!(
            refusal(
                Dialect::V0_1,
                "CreateTaskPushNotificationConfig",
                &personality
            )
            .is_none()
        );
        assert!(refusal(Dialect::V1_0, "NoSuchMethod", &personality).is_none());
    }

    #[test]
    fn the_extended_card_is_an_unsupported_operation() {
        let personality = Personality::default();
        assert_eq!(
            refusal(Dialect::V1_0, "GetExtendedAgentCard", &personality).map(|error| error.code),
            Some(ErrorCode::UnsupportedOperation)
        );
        assert!(
            refusal(
                Dialect::V0_1,
                "agent/getAuthenticatedExtendedCard",
                &personality
            )
            .is_none()
        );
    }
}
