//! proptest strategies for model values a given dialect can express, so round trips through
//! that dialect's codec must be exact and lossless.

use meshsim_protocol::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use serde_json::{Map, Value};

type Bs<T> = BoxedStrategy<T>;

fn id() -> Bs<String> {
    "[a-z0-9-]{1,10}".boxed()
}

fn text() -> Bs<String> {
    any::<String>()
        .prop_map(|s| s.chars().take(12).collect())
        .boxed()
}

fn strings() -> Bs<Vec<String>> {
    vec(text(), 0..3).boxed()
}

/// Any JSON value, a few levels deep.
pub fn json() -> Bs<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((text(), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
    .boxed()
}

/// A JSON object (what `metadata` and v0.1/v0.3 data parts hold).
pub fn json_object() -> Bs<Value> {
    vec((text(), json()), 0..4)
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
        .boxed()
}

fn metadata() -> Bs<Option<Value>> {
    option::of(json_object()).boxed()
}

fn state(dialect: Dialect) -> Bs<TaskState> {
    let states: Vec<TaskState> = TaskState::ALL
        .into_iter()
        .filter(|state| {
            dialect != Dialect::V0_1
                || !matches!(state, TaskState::Rejected | TaskState::AuthRequired)
        })
        .collect();
    proptest::sample::select(states).boxed()
}

fn part(dialect: Dialect) -> Bs<Part> {
    let data = match dialect {
        Dialect::V1_0 => json()
            .prop_filter("not null", |value| !value.is_null())
            .boxed(),
        _ => json_object(),
    };
    let file = (
        option::of(text()),
        option::of(text()),
        any::<bool>(),
        text(),
    )
        .prop_map(|(name, media_type, inline, content)| FileContent {
            name,
            media_type,
            bytes: inline.then(|| content.clone()),
            uri: (!inline).then_some(content),
        });
    let content = prop_oneof![
        text().prop_map(PartContent::Text),
        data.prop_map(PartContent::Data),
        file.prop_map(PartContent::File),
    ];
    (content, metadata())
        .prop_map(|(content, metadata)| Part { content, metadata })
        .boxed()
}

fn role() -> Bs<Role> {
    prop_oneof![Just(Role::User), Just(Role::Agent)].boxed()
}

/// A message stored in a task or status (v0.1 ones carry no ids).
pub fn message(dialect: Dialect) -> Bs<Message> {
    let ids = match dialect {
        Dialect::V0_1 => Just((None, None, None)).boxed(),
        Dialect::V0_3 => (id(), option::of(id()), option::of(id()))
            .prop_map(|(message, task, context)| (Some(message), task, context))
            .boxed(),
        Dialect::V1_0 => (option::of(id()), option::of(id()), option::of(id())).boxed(),
    };
    (ids, role(), vec(part(dialect), 0..3), metadata())
        .prop_map(
            |((message_id, task_id, context_id), role, parts, metadata)| Message {
                message_id,
                role,
                parts,
                task_id,
                context_id,
                metadata,
            },
        )
        .boxed()
}

/// A message as sent in `SendMessage` (v0.1 carries the task and session ids in params).
fn sent_message(dialect: Dialect) -> Bs<Message> {
    if dialect != Dialect::V0_1 {
        return message(dialect);
    }
    (message(dialect), id(), option::of(id()))
        .prop_map(|(mut message, task, context)| {
            message.task_id = Some(task);
            message.context_id = context;
            message
        })
        .boxed()
}

fn status(dialect: Dialect) -> Bs<TaskStatus> {
    (
        state(dialect),
        option::of(message(dialect)),
        option::of(text()),
    )
        .prop_map(|(state, message, timestamp)| TaskStatus {
            state,
            message,
            timestamp,
            unrecognised_state: None,
        })
        .boxed()
}

fn artifact(dialect: Dialect) -> Bs<Artifact> {
    let artifact_id = match dialect {
        Dialect::V0_1 => Just(None).boxed(),
        Dialect::V0_3 => id().prop_map(Some).boxed(),
        Dialect::V1_0 => option::of(id()).boxed(),
    };
    (
        artifact_id,
        option::of(text()),
        option::of(text()),
        vec(part(dialect), 0..3),
        metadata(),
    )
        .prop_map(
            |(artifact_id, name, description, parts, metadata)| Artifact {
                artifact_id,
                name,
                description,
                parts,
                metadata,
            },
        )
        .boxed()
}

/// A context id where the dialect requires one (v0.3), may have one (v1.0), or has none
/// on events (v0.1).
fn event_context(dialect: Dialect) -> Bs<Option<String>> {
    match dialect {
        Dialect::V0_1 => Just(None).boxed(),
        Dialect::V0_3 => id().prop_map(Some).boxed(),
        Dialect::V1_0 => option::of(id()).boxed(),
    }
}

pub fn task(dialect: Dialect) -> Bs<Task> {
    let context = match dialect {
        Dialect::V0_3 => id().prop_map(Some).boxed(),
        _ => option::of(id()).boxed(),
    };
    (
        id(),
        context,
        status(dialect),
        vec(message(dialect), 0..2),
        vec(artifact(dialect), 0..2),
        metadata(),
    )
        .prop_map(
            |(id, context_id, status, history, artifacts, metadata)| Task {
                id,
                context_id,
                status,
                history,
                artifacts,
                metadata,
            },
        )
        .boxed()
}

fn status_update(dialect: Dialect) -> Bs<TaskStatusUpdateEvent> {
    let is_final = match dialect {
        Dialect::V0_1 => option::of(any::<bool>()).boxed(),
        Dialect::V0_3 => any::<bool>().prop_map(Some).boxed(),
        Dialect::V1_0 => Just(None).boxed(),
    };
    (
        id(),
        event_context(dialect),
        status(dialect),
        is_final,
        metadata(),
    )
        .prop_map(
            |(task_id, context_id, status, is_final, metadata)| TaskStatusUpdateEvent {
                task_id,
                context_id,
                status,
                is_final,
                metadata,
            },
        )
        .boxed()
}

fn artifact_update(dialect: Dialect) -> Bs<TaskArtifactUpdateEvent> {
    (
        id(),
        event_context(dialect),
        artifact(dialect),
        option::of(any::<bool>()),
        option::of(any::<bool>()),
        metadata(),
    )
        .prop_map(
            |(task_id, context_id, artifact, append, last_chunk, metadata)| {
                TaskArtifactUpdateEvent {
                    task_id,
                    context_id,
                    artifact,
                    append,
                    last_chunk,
                    metadata,
                }
            },
        )
        .boxed()
}

/// A stream event; v0.1 streams carry only status and artifact updates.
pub fn event(dialect: Dialect) -> Bs<StreamEvent> {
    let updates = prop_oneof![
        status_update(dialect).prop_map(StreamEvent::StatusUpdate),
        artifact_update(dialect).prop_map(StreamEvent::ArtifactUpdate),
    ];
    if dialect == Dialect::V0_1 {
        return updates.boxed();
    }
    prop_oneof![
        updates,
        task(dialect).prop_map(StreamEvent::Task),
        message(dialect).prop_map(StreamEvent::Message),
    ]
    .boxed()
}

fn request_id() -> Bs<RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Number),
        text().prop_map(RequestId::String),
        Just(RequestId::Null)
    ]
    .boxed()
}

fn send_params(dialect: Dialect) -> Bs<SendMessageParams> {
    let configuration = match dialect {
        // v0.1 has only historyLength, at the params' top level.
        Dialect::V0_1 => option::of(any::<i32>())
            .prop_map(|history_length| {
                history_length.map(|history_length| SendConfiguration {
                    history_length: Some(history_length),
                    ..SendConfiguration::default()
                })
            })
            .boxed(),
        _ => option::of(
            (
                strings(),
                option::of(any::<i32>()),
                option::of(any::<bool>()),
            )
                .prop_map(
                    |(accepted_output_modes, history_length, return_immediately)| {
                        SendConfiguration {
                            accepted_output_modes,
                            history_length,
                            return_immediately,
                        }
                    },
                ),
        )
        .boxed(),
    };
    (sent_message(dialect), configuration, metadata())
        .prop_map(|(message, configuration, metadata)| SendMessageParams {
            message,
            configuration,
            metadata,
        })
        .boxed()
}

pub fn request(dialect: Dialect) -> Bs<RpcRequest> {
    let mut requests = vec![
        send_params(dialect).prop_map(Request::SendMessage).boxed(),
        send_params(dialect)
            .prop_map(Request::SendStreamingMessage)
            .boxed(),
        id().prop_map(|id| Request::SubscribeToTask { id }).boxed(),
        (id(), option::of(any::<i32>()))
            .prop_map(|(id, history_length)| Request::GetTask(GetTaskParams { id, history_length }))
            .boxed(),
        id().prop_map(|id| Request::CancelTask { id }).boxed(),
    ];
    if dialect == Dialect::V1_0 {
        // A filter on `unknown` has no spelling (`unknown_values` reads one from a number).
        let filter =
            state(dialect).prop_filter("a known state", |state| *state != TaskState::Unknown);
        let list = (
            option::of(id()),
            option::of(filter),
            option::of(any::<i32>()),
            option::of(text()),
            option::of(any::<i32>()),
            option::of(text()),
            option::of(any::<bool>()),
        )
            .prop_map(
                |(
                    context_id,
                    status,
                    page_size,
                    page_token,
                    history_length,
                    status_timestamp_after,
                    include_artifacts,
                )| {
                    Request::ListTasks(ListTasksParams {
                        context_id,
                        status,
                        page_size,
                        page_token,
                        history_length,
                        status_timestamp_after,
                        include_artifacts,
                    })
                },
            );
        requests.push(list.boxed());
    }
    (
        request_id(),
        proptest::strategy::Union::new(requests),
        tenant(dialect),
    )
        .prop_map(|(id, request, tenant)| RpcRequest {
            id,
            request,
            tenant,
        })
        .boxed()
}

/// A tenant, which only v1.0 requests and interfaces carry (an empty one is none).
fn tenant(dialect: Dialect) -> Bs<Option<String>> {
    match dialect {
        Dialect::V1_0 => option::of(id()).boxed(),
        _ => Just(None).boxed(),
    }
}

fn error(dialect: Dialect) -> Bs<RpcError> {
    let code = prop_oneof![
        proptest::sample::select(ErrorCode::NAMED.to_vec()),
        (-33000i64..-31000).prop_map(ErrorCode::from_code),
    ];
    let data = match dialect {
        Dialect::V0_1 => option::of(json_object()).boxed(),
        Dialect::V0_3 => {
            option::of(json().prop_filter("null reads as absent", |v| !v.is_null())).boxed()
        }
        Dialect::V1_0 => option::of(vec(json_object(), 0..3).prop_map(Value::Array)).boxed(),
    };
    (code, text(), data)
        .prop_map(|(code, message, data)| RpcError {
            code,
            message,
            data,
        })
        .boxed()
}

/// A response with the method it answers, as the dialect can express it.
pub fn response(dialect: Dialect) -> Bs<(Method, RpcResponse)> {
    let unary = prop_oneof![
        Just(Method::SendMessage),
        Just(Method::GetTask),
        Just(Method::CancelTask)
    ];
    let streaming = prop_oneof![
        Just(Method::SendStreamingMessage),
        Just(Method::SubscribeToTask)
    ];
    let mut outcomes = vec![
        (unary.clone(), task(dialect))
            .prop_map(|(method, task)| (method, Ok(RpcResult::Task(task))))
            .boxed(),
        (streaming, event(dialect))
            .prop_map(|(method, event)| (method, Ok(RpcResult::Event(event))))
            .boxed(),
        (unary, error(dialect))
            .prop_map(|(method, error)| (method, Err(error)))
            .boxed(),
    ];
    if dialect != Dialect::V0_1 {
        outcomes.push(
            message(dialect)
                .prop_map(|message| (Method::SendMessage, Ok(RpcResult::Message(message))))
                .boxed(),
        );
    }
    if dialect == Dialect::V1_0 {
        let list = (vec(task(dialect), 0..3), text(), any::<i32>(), any::<i32>()).prop_map(
            |(tasks, next_page_token, page_size, total_size)| TaskList {
                tasks,
                next_page_token,
                page_size,
                total_size,
            },
        );
        outcomes.push(
            list.prop_map(|list| (Method::ListTasks, Ok(RpcResult::TaskList(list))))
                .boxed(),
        );
    }
    (request_id(), proptest::strategy::Union::new(outcomes))
        .prop_map(|(id, (method, outcome))| (method, RpcResponse { id, outcome }))
        .boxed()
}

pub fn card(dialect: Dialect) -> Bs<AgentCard> {
    let interfaces = match dialect {
        Dialect::V0_1 => id()
            .prop_map(|url| {
                vec![AgentInterface {
                    url,
                    protocol_binding: "JSONRPC".to_string(),
                    protocol_version: None,
                    tenant: None,
                }]
            })
            .boxed(),
        Dialect::V0_3 => (vec((id(), text()), 1..4), text())
            .prop_map(|(interfaces, version)| {
                interfaces
                    .into_iter()
                    .map(|(url, binding)| AgentInterface {
                        url,
                        protocol_binding: binding,
                        protocol_version: Some(version.clone()),
                        tenant: None,
                    })
                    .collect()
            })
            .boxed(),
        Dialect::V1_0 => vec(
            (id(), text(), option::of(text()), tenant(Dialect::V1_0)),
            1..4,
        )
        .prop_map(|interfaces| {
            interfaces
                .into_iter()
                .map(
                    |(url, protocol_binding, protocol_version, tenant)| AgentInterface {
                        url,
                        protocol_binding,
                        protocol_version,
                        tenant,
                    },
                )
                .collect()
        })
        .boxed(),
    };
    let required_text = match dialect {
        Dialect::V0_3 => text().prop_map(Some).boxed(),
        _ => option::of(text()).boxed(),
    };
    let skill = (
        id(),
        text(),
        required_text.clone(),
        strings(),
        strings(),
        strings(),
        strings(),
    )
        .prop_map(
            |(id, name, description, tags, examples, input_modes, output_modes)| AgentSkill {
                id,
                name,
                description,
                tags,
                examples,
                input_modes,
                output_modes,
            },
        );
    let capabilities = (
        option::of(any::<bool>()),
        option::of(any::<bool>()),
        option::of(any::<bool>()),
        option::of(any::<bool>()),
    )
        .prop_map(
            move |(streaming, push, history, extended)| AgentCapabilities {
                streaming,
                push_notifications: push,
                state_transition_history: if dialect == Dialect::V1_0 {
                    None
                } else {
                    history
                },
                extended_agent_card: if dialect == Dialect::V0_1 {
                    None
                } else {
                    extended
                },
            },
        );
    let security = match dialect {
        Dialect::V0_1 => strings(),
        _ => Just(Vec::new()).boxed(),
    };
    (
        (text(), required_text, text()),
        interfaces,
        capabilities,
        (strings(), strings()),
        vec(skill, 0..3),
        security,
    )
        .prop_map(
            |(
                (name, description, version),
                interfaces,
                capabilities,
                (inputs, outputs),
                skills,
                security_schemes,
            )| {
                AgentCard {
                    name,
                    description,
                    version,
                    interfaces,
                    capabilities,
                    default_input_modes: inputs,
                    default_output_modes: outputs,
                    skills,
                    security_schemes,
                }
            },
        )
        .boxed()
}
