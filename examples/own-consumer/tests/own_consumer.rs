//! A consumer written from scratch, put through the meshsim matrix: it polls the task it
//! starts and answers its question. `a_poller_that_takes_a_question_for_an_answer` is the
//! same consumer deliberately broken, to show what a failure prints.

use a2a_meshsim::prelude::*;

struct Poller {
    connector: SimConnector,
    ids: IdSource,
    /// The deliberate bug: accept a task that asks a question as completed.
    takes_a_question_for_an_answer: bool,
}

impl Consumer for Poller {
    fn name(&self) -> &str {
        "poller"
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        Box::pin(async move {
            let mut report = Report::new(&job, self.name());
            let outcome = match self.follow(&job, &mut report).await {
                Ok(outcome) => outcome,
                Err(error) => Outcome::GaveUp {
                    reason: error.to_string(),
                },
            };
            report.finish(outcome)
        })
    }
}

impl Poller {
    async fn follow(&self, job: &Job, report: &mut Report) -> Result<Outcome, ClientError> {
        let client = A2aClient::discover(self.connector.clone(), &job.peer, sim_client()).await?;
        let request = client.new_task_message(&self.ids, &job.request);
        let RpcResult::Task(mut task) = client.send_message(request).await? else {
            return Ok(Outcome::GaveUp {
                reason: "no task".into(),
            });
        };
        let mut believed = None;
        loop {
            let state = task.status.state;
            if believed != Some(state) {
                tracing::info!(target: "my_orchestrator", task = %task.id, %state, "applied");
                report.applied(&task.id, state);
                believed = Some(state);
            }
            match state {
                TaskState::InputRequired if self.takes_a_question_for_an_answer => {
                    return Ok(Outcome::Completed {
                        task_id: task.id,
                        artifact: String::new(),
                    });
                }
                TaskState::Completed => {
                    let artifact = task.artifacts.iter().map(artifact_text).collect();
                    return Ok(Outcome::Completed {
                        task_id: task.id,
                        artifact,
                    });
                }
                TaskState::Canceled => return Ok(Outcome::Canceled { task_id: task.id }),
                state if state.is_terminal() => {
                    let reason = state.to_string();
                    return Ok(Outcome::Failed {
                        task_id: task.id,
                        reason,
                    });
                }
                TaskState::InputRequired => {
                    let context = task.context_id.as_deref();
                    let answer =
                        client.follow_up_message(&self.ids, &task.id, context, &job.answer);
                    client.send_message(answer).await?;
                }
                _ => sleep(Duration::from_millis(100)).await,
            }
            task = client.get_task(&task.id).await?;
        }
    }
}

fn poller(takes_a_question_for_an_answer: bool) -> ConsumerChoice {
    ConsumerChoice::custom("poller", move |connector, seed| Poller {
        connector,
        ids: IdSource::new(seed),
        takes_a_question_for_an_answer,
    })
}

#[test]
fn the_poller_holds_against_the_correct_runtimes() {
    Matrix::for_consumer(poller(false))
        .runtimes(["python-correct", "a2a-java-1.2"])
        .scenarios([Scenario::OriginIncident])
        .faults([Faults::None])
        .seeds(0..2)
        .run()
        .assert_expectations();
}

#[test]
#[ignore = "deliberately broken: run with --ignored to see a failure report"]
fn a_poller_that_takes_a_question_for_an_answer() {
    Matrix::for_consumer(poller(true))
        .runtimes(["python-correct", "a2a-java-1.2"])
        .scenarios([Scenario::OriginIncident])
        .faults([Faults::None])
        .seeds(0..2)
        .run()
        .assert_expectations();
}
