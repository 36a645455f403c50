//! What the probe is given and what it reports: its configuration, the Card's claims (and
//! the bindings the Card offers), the measured lifecycle, and the contradictions between them.

use crate::client::ClientConfig;
use crate::profile::{FollowupBehaviour, ResubscribeBehaviour};
use meshsim_protocol::{AgentCard, Binding, Dialect, TaskState};
use serde::Serialize;
use std::time::Duration;

/// What the probe sends and how long it watches.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    pub client: ClientConfig,
    /// The text of the task the probe starts.
    pub request: String,
    /// The answer it sends when asked for input.
    pub answer: String,
    /// How long a quiet stream is watched before the probe decides it stays open.
    pub settle: Duration,
    /// Seed of the probe's ids.
    pub seed: u64,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        ProbeConfig {
            client: ClientConfig {
                idle_timeout: Duration::from_secs(30),
                ..ClientConfig::default()
            },
            request: "Summarise the attached report".to_string(),
            answer: "Plain text, please".to_string(),
            settle: Duration::from_secs(2),
            seed: 0,
        }
    }
}

/// What the Card claims, in the origin note's terms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CardClaims {
    pub name: String,
    pub version: String,
    pub dialect: Dialect,
    /// The bindings of the Card's interfaces that meshsim speaks, in the Card's order.
    pub bindings: Vec<Binding>,
    pub streaming: Option<bool>,
    pub push_notifications: Option<bool>,
    pub state_transition_history: Option<bool>,
    /// The tenant the interface the probe spoke declares (v1.0), which it sent in every
    /// request.
    pub tenant: Option<String>,
}

impl CardClaims {
    pub(super) fn of(card: &AgentCard, dialect: Dialect, tenant: Option<&str>) -> Self {
        CardClaims {
            name: card.name.clone(),
            version: card.version.clone(),
            dialect,
            bindings: offered_bindings(card, dialect),
            streaming: card.capabilities.streaming,
            push_notifications: card.capabilities.push_notifications,
            state_transition_history: card.capabilities.state_transition_history,
            tenant: tenant.map(str::to_string),
        }
    }
}

/// Each binding of the Card's interfaces that meshsim speaks in `dialect`, once, in the
/// Card's order.
fn offered_bindings(card: &AgentCard, dialect: Dialect) -> Vec<Binding> {
    let mut bindings = Vec::new();
    for interface in &card.interfaces {
        if let Some(binding) = Binding::from_name(&interface.protocol_binding)
            && binding.exists_in(dialect)
            && !bindings.contains(&binding)
        {
            bindings.push(binding);
        }
    }
    bindings
}

/// A claim of the Card that the measured lifecycle contradicts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contradiction {
    /// The claim, e.g. `capabilities.streaming = true`.
    pub claim: String,
    /// What the probe saw instead.
    pub observed: String,
}

/// The measured lifecycle profile beside the Card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeReport {
    pub url: String,
    pub card: CardClaims,
    /// The binding the probe spoke: the first of the Card's that the client speaks.
    pub binding: Binding,
    /// Whether the endpoint the Card names answered the first turn at all: false when the
    /// probe could not connect to it, the connection failed, or no answer came in time.
    pub endpoint_answered: bool,
    /// The task the probe started, if the agent named one.
    pub task_id: Option<String>,
    /// The states the first turn went through, in order.
    pub first_turn: Vec<TaskState>,
    pub reached_input_required: bool,
    pub stream_closes_on_input_required: Option<bool>,
    pub task_survives_stream_close: Option<bool>,
    pub resubscribe_after_input_required: Option<ResubscribeBehaviour>,
    pub followup_same_task: Option<FollowupBehaviour>,
    /// The states the follow-up's answer went through.
    pub followup_turn: Vec<TaskState>,
    /// `tasks/get` after the follow-up: the state, or the error.
    pub get_after_followup: Option<String>,
    /// `tasks/cancel` at the end: the state, or the error.
    pub cancel: Option<String>,
    pub contradictions: Vec<Contradiction>,
    /// Anything else worth telling: failures of single steps, why a step was skipped.
    pub notes: Vec<String>,
}

impl ProbeReport {
    /// The report of a probe of `url` that has read the Card (`card`, to be spoken to over
    /// `binding`) and measured nothing yet.
    pub fn unmeasured(url: String, card: CardClaims, binding: Binding) -> Self {
        ProbeReport {
            url,
            card,
            binding,
            endpoint_answered: false,
            task_id: None,
            first_turn: Vec::new(),
            reached_input_required: false,
            stream_closes_on_input_required: None,
            task_survives_stream_close: None,
            resubscribe_after_input_required: None,
            followup_same_task: None,
            followup_turn: Vec::new(),
            get_after_followup: None,
            cancel: None,
            contradictions: Vec::new(),
            notes: Vec::new(),
        }
    }
}
