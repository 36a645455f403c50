// A reconciling A2A consumer on the official JavaScript client (@a2a-js/sdk, as
// interop/install.sh pins it), run by `meshsim check` (docs/check.md). It is the same
// consumer as examples/consumers/python/reconciling.py, and does not take the Agent Card's
// word for the task's lifecycle:
//
// - it applies a state only when it moves the task forward (never the current state again,
//   never `submitted` twice, nothing after the end), so replayed history is not applied twice;
// - it does not resubscribe to learn where a task stands: it asks (`GetTask`), a sync point;
// - when the agent no longer knows the task (reaped with its stream, lost in a crash) or
//   will not go on with it (a follow-up refused with -32001 or answered with another task),
//   it cancels the task, which says which it was, and starts the job again without streams
//   for that agent, since its tasks may not outlive them;
// - it takes a completed task's artifacts from `GetTask`, not from stream chunks that may
//   have been cut short or replayed;
// - it owns the deadlines for `submitted` and `working`, on a stream too: past one it cancels
//   the task and starts again;
// - it gives up cleanly where the agent leaves it no way on: when the agent will not cancel a
//   task it must cancel (recording the refusal), and before the job's own deadline, canceling
//   the task in hand first;
// - a cancel that fails on the way (the connection reset, the agent out of reach) is tried
//   again a few times, since only the agent's answer says what became of the task.
//
// JavaScript cannot cancel a promise, as Python cancels a coroutine at the job's deadline:
// every call here takes an abort signal, and the job's deadline aborts them all and stops
// the dispatches before the task in hand is canceled, so that nothing goes on behind it.
//
// Usage: meshsim check [...] -- node examples/consumers/js/reconciling.mjs
// (meshsim_contract.mjs says where the SDK is loaded from.)

import {
  INTERRUPTED,
  TERMINAL,
  TaskState,
  clientFactory,
  jobTimeLeftMs,
  outcomeOf,
  run,
  sdk,
  stateName,
  textOf,
} from './meshsim_contract.mjs';

const { Role } = sdk('@a2a-js/sdk');
const { TaskNotCancelableError, TaskNotFoundError } = sdk('@a2a-js/sdk/errors');

const POLL_MS = 200;
const MAX_DISPATCHES = 6;
// Given up this long before the job's deadline, to cancel the task in hand first.
const CLEANUP_MS = 2000;
// A cancel that fails on the way is tried again after these pauses (ms): the agent may be
// out of reach for a moment, and a task left uncanceled is left running.
const CANCEL_RETRY_PAUSES_MS = [500, 1000, 2000];
// How long a plain call may take, and a stream may stay silent.
const CALL_TIMEOUT_MS = 5000;

/** The agent no longer knows the task. */
class TaskGone extends Error {}

/** The job's deadline is near: the dispatches stop. */
class Halted extends Error {}

/** One task as far as the consumer applied it. */
class Tracked {
  constructor(taskId = undefined) {
    this.taskId = taskId;
    this.contextId = undefined;
    this.state = undefined;
    this.since = performance.now();
    this.artifacts = new Map();
    // Whether the artifacts are the whole task's, as GetTask answered it.
    this.artifactsWhole = false;
    this.statusText = '';
  }
}

/** A plain answer (a Task, or a Message) as the one event of a stream. */
async function* asEvents(answer) {
  const result = await answer;
  if (result?.status !== undefined) yield { payload: { $case: 'task', value: result } };
}

class Reconciling {
  constructor(order, report, streamingClient, plainClient, streaming) {
    this.order = order;
    this.report = report;
    this.streamingClient = streamingClient;
    this.plainClient = plainClient;
    this.streaming = streaming;
    this.connections = 0;
    this.messages = 0;
    // The task being followed, for the cleanup before the job's deadline.
    this.current = undefined;
    // Tasks the agent started that are not the one followed: canceled when found.
    this.strays = [];
    // Aborted at the job's deadline: every call in flight, and every call after.
    this.halt = new AbortController();
  }

  /** Throws `Halted` once the job's deadline has stopped the dispatches. */
  checkHalt() {
    if (this.halt.signal.aborted) throw new Halted();
  }

  /** A plain call's options: bounded in time, and aborted by the halt. */
  callOptions() {
    return { signal: AbortSignal.any([this.halt.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]) };
  }

  async sleep(ms) {
    this.checkHalt();
    await new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.halt.signal.removeEventListener('abort', wake);
        resolve();
      }, ms);
      this.halt.signal.addEventListener('abort', wake, { once: true });
    });
    this.checkHalt();
  }

  message(text, task, followUp) {
    this.messages += 1;
    return {
      messageId: `msg-${this.order.seed}-${this.messages}`,
      contextId: task.contextId || `ctx-${this.order.seed}-${this.messages}`,
      taskId: followUp ? task.taskId : '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
  }

  /** Applies `state` if it moves the task forward. */
  apply(task, state, connection, index, via) {
    const current = task.state;
    if (TERMINAL.has(current) || state === current) return;
    // History replayed, or a runtime that restarts the turn: not news.
    if (state === TaskState.TASK_STATE_SUBMITTED && current !== undefined) return;
    if (state === undefined || state === TaskState.TASK_STATE_UNSPECIFIED) return;
    this.report.applied(task.taskId, state, connection, index, via);
    task.state = state;
    task.since = performance.now();
  }

  /** Takes in one event; whether it ends what the consumer reads. */
  take(task, event, connection, index, via) {
    const payload = event.payload;
    let status;
    if (payload?.$case === 'task') {
      const snapshot = payload.value;
      task.taskId ??= snapshot.id;
      this.sameTask(task, snapshot.id);
      task.contextId = snapshot.contextId || task.contextId;
      for (const artifact of snapshot.artifacts) {
        task.artifacts.set(artifact.artifactId, textOf(artifact.parts));
      }
      status = snapshot.status;
    } else if (payload?.$case === 'statusUpdate') {
      const update = payload.value;
      task.taskId ??= update.taskId;
      this.sameTask(task, update.taskId);
      task.contextId = update.contextId || task.contextId;
      status = update.status;
    } else if (payload?.$case === 'artifactUpdate') {
      const update = payload.value;
      const { artifactId, parts } = update.artifact;
      const text = textOf(parts);
      const held = task.artifacts.get(artifactId);
      task.artifacts.set(artifactId, update.append && held !== undefined ? held + text : text);
      task.artifactsWhole = false;
      return false;
    } else {
      return false;
    }
    if (status?.message) task.statusText = textOf(status.message.parts);
    this.apply(task, status?.state, connection, index, via);
    return INTERRUPTED.has(task.state) || TERMINAL.has(task.state);
  }

  /** An answer about another task than the one followed (a follow-up that started a new
   * task) means the agent no longer has ours. */
  sameTask(task, taskId) {
    if (taskId && taskId !== task.taskId) {
      this.strays.push(taskId);
      throw new TaskGone();
    }
  }

  /** Milliseconds until the task's state outstays its limit (null: no limit). */
  timeLeft(task) {
    const limit = this.limit(task);
    if (limit === null) return null;
    return Math.max(0, limit - (performance.now() - task.since));
  }

  /** How long the task may stay in its state, if the job bounds it. */
  limit(task) {
    if (task.state === TaskState.TASK_STATE_SUBMITTED) return this.order.submittedDeadlineMs;
    if (task.state === TaskState.TASK_STATE_WORKING) return this.order.workingDeadlineMs;
    return null;
  }

  /** The limit the task's state has outstayed, if it has. */
  deadlinePassed(task) {
    return this.timeLeft(task) === 0 ? this.limit(task) : null;
  }

  /** Sends a message and takes in what comes back, streamed or whole. */
  async send(task, message) {
    this.checkHalt();
    this.connections += 1;
    const connection = this.connections;
    const before = task.state;
    // Aborted when the consumer stops reading, so that the stream's connection closes.
    const done = new AbortController();
    const signal = AbortSignal.any([this.halt.signal, done.signal]);
    const events = this.streaming
      ? this.streamingClient.sendMessageStream({ message }, { signal })
      : asEvents(this.plainClient.sendMessage({ message }, this.callOptions()));
    const iterator = events[Symbol.asyncIterator]();
    let index = 0;
    try {
      for (;;) {
        // A stream the agent keeps open (keep-alives, a stalled task) is read only until
        // the state's deadline, a silent one for a call's time; then GetTask and the
        // deadline take over.
        const left = this.timeLeft(task);
        const wait = left === null ? CALL_TIMEOUT_MS : Math.min(left, CALL_TIMEOUT_MS);
        let timer;
        const expired = new Promise((resolve) => {
          timer = setTimeout(() => resolve('expired'), wait);
        });
        const next = await Promise.race([iterator.next(), expired]);
        clearTimeout(timer);
        if (next === 'expired') {
          console.log(`send ${connection}: ${stateName(task.state)}: no event in ${Math.round(wait)} ms`);
          break;
        }
        if (next.done) break;
        const event = next.value;
        const via = this.streaming
          ? event.payload?.$case === 'task'
            ? 'snapshot'
            : 'status-update'
          : 'result';
        const settles = this.take(task, event, connection, index, via);
        index += 1;
        if (settles && task.state !== before) break;
      }
    } catch (error) {
      this.checkHalt();
      if (error instanceof TaskGone) throw error;
      if (error instanceof TaskNotFoundError) throw new TaskGone();
      // A cut stream or a reset: where the task is, GetTask says.
      console.log(`send ${connection}: ${error}`);
    } finally {
      done.abort();
      iterator.return?.().catch(() => {});
    }
    this.checkHalt();
  }

  /** Asks the agent where the task stands. */
  async confirm(task) {
    this.checkHalt();
    this.connections += 1;
    let snapshot;
    try {
      snapshot = await this.plainClient.getTask({ id: task.taskId }, this.callOptions());
    } catch (error) {
      this.checkHalt();
      if (error instanceof TaskNotFoundError) throw new TaskGone();
      console.log(`get ${this.connections}: ${error}`);
      return;
    }
    for (const artifact of snapshot.artifacts) {
      task.artifacts.set(artifact.artifactId, textOf(artifact.parts));
    }
    task.artifactsWhole = true;
    if (snapshot.status?.message) task.statusText = textOf(snapshot.status.message.parts);
    this.apply(task, snapshot.status?.state, this.connections, 0, 'result');
  }

  /** Asks the agent to cancel the task: the report's `cancel` result, and the task the
   * agent answered with (undefined when it answered none). `signal` bounds the call. */
  async askCancel(task, options = this.callOptions()) {
    this.connections += 1;
    try {
      const answered = await this.plainClient.cancelTask({ id: task.taskId }, options);
      return [{ result: 'answered', state: stateName(answered.status?.state) }, answered];
    } catch (error) {
      if (error instanceof TaskNotFoundError) return [{ result: 'task-gone' }, undefined];
      if (error instanceof TaskNotCancelableError) return [{ result: 'not-cancelable' }, undefined];
      return [{ result: 'failed', error: String(error) }, undefined];
    }
  }

  /** Cancels a task the consumer gives up on and records it. A cancel that fails on the way
   * is tried again after each of `pauses` (ms): only the agent's answer (canceled, gone, or
   * a refusal) says what became of the task. `options` bounds each call (by default a
   * plain call's). */
  async cancel(task, reason, { options, pauses = CANCEL_RETRY_PAUSES_MS } = {}) {
    let [cancel] = await this.askCancel(task, options ?? this.callOptions());
    for (const pause of pauses) {
      if (cancel.result !== 'failed') break;
      await this.sleep(pause);
      [cancel] = await this.askCancel(task, options ?? this.callOptions());
    }
    this.report.abandoned(task.taskId, reason, cancel);
  }

  /** Cancels the task the job cancels at input-required; whether the job has its outcome
   * (an agent that will not cancel it leaves the job no way on). */
  async cancelWaiting(task) {
    this.checkHalt();
    const [cancel, answered] = await this.askCancel(task);
    this.checkHalt();
    if (cancel.result === 'task-gone') throw new TaskGone();
    if (cancel.result === 'failed') {
      // Where the task is, GetTask says on the next round.
      console.log(`cancel ${this.connections}: ${cancel.error}`);
      await this.sleep(POLL_MS);
      return false;
    }
    if (answered !== undefined) {
      this.apply(task, answered.status?.state, this.connections, 0, 'result');
      if (!INTERRUPTED.has(task.state)) return false;
    }
    this.report.abandoned(task.taskId, 'the agent would not cancel it', cancel);
    this.report.outcome('gave-up', { reason: 'the agent would not cancel the task' });
    return true;
  }

  /** Runs one task of the job; whether the job has its outcome. */
  async dispatch() {
    const task = new Tracked();
    this.current = task;
    try {
      await this.send(task, this.message(this.order.request, task, false));
      if (task.taskId === undefined) {
        await this.sleep(POLL_MS);
        return false;
      }
      // The question answered last, by when the task entered it: a question is answered
      // once, however often the agent reports it.
      let answeredSince;
      for (;;) {
        if (task.state === TaskState.TASK_STATE_COMPLETED && !task.artifactsWhole) {
          // A stream's chunks may have been cut short or replayed: the artifacts are taken
          // as GetTask answers them (once; a failed get keeps them).
          await this.confirm(task);
          task.artifactsWhole = true;
        }
        const artifact = [...task.artifacts.values()].join('');
        if (outcomeOf(this.report, task.taskId, task.state, artifact, task.statusText)) return true;
        await this.confirm(task);
        if (TERMINAL.has(task.state)) continue;
        const limit = this.deadlinePassed(task);
        if (limit !== null) {
          this.report.deadline(task.taskId, task.state, limit);
          await this.cancel(task, 'deadline passed');
          return false;
        }
        if (INTERRUPTED.has(task.state) && this.order.cancelAtInputRequired) {
          if (await this.cancelWaiting(task)) return true;
        } else if (INTERRUPTED.has(task.state) && answeredSince !== task.since) {
          answeredSince = task.since;
          await this.send(task, this.message(this.order.answer, task, true));
        } else {
          await this.sleep(POLL_MS);
        }
      }
    } catch (error) {
      if (!(error instanceof TaskGone)) throw error;
      // Its tasks do not outlive their streams (or the agent lost it): start again, without
      // streams. A follow-up refused with -32001, or answered with another task, does not
      // say the task is gone: a cancel says whether it is, and ends it if not (or records
      // the agent's refusal).
      if (task.taskId) await this.cancel(task, 'the agent lost the task or will not go on with it');
      for (const stray of this.strays.splice(0)) {
        await this.cancel(new Tracked(stray), 'started by the agent in our place');
      }
      this.streaming = false;
      return false;
    }
  }

  async dispatches() {
    for (let round = 0; round < MAX_DISPATCHES; round += 1) {
      if (await this.dispatch()) return;
    }
    this.report.outcome('gave-up', { reason: `no outcome after ${MAX_DISPATCHES} tasks` });
  }

  /** The dispatches, given up before the job's deadline with the task in hand canceled, so
   * that nothing is left running on the agent. */
  async run() {
    let timer;
    const nearDeadline = new Promise((resolve) => {
      // From the job's deadline, not from now: the Card and the clients took time too.
      timer = setTimeout(() => resolve('near'), Math.max(0, jobTimeLeftMs(this.order) - CLEANUP_MS));
    });
    const dispatches = this.dispatches().catch((error) => {
      if (!(error instanceof Halted)) throw error;
    });
    const first = await Promise.race([dispatches, nearDeadline]);
    clearTimeout(timer);
    if (first !== 'near' || this.report.finished) return;
    // Stop the dispatches (every call in flight is aborted) and wait for them to end, so
    // that none starts a task behind the cleanup.
    this.halt.abort();
    await dispatches;
    if (this.report.finished) return;
    const task = this.current;
    if (task?.taskId && !TERMINAL.has(task.state)) {
      // Once: the job's deadline leaves no time to try again.
      await this.cancel(task, 'the job deadline is near', {
        options: { signal: AbortSignal.timeout(CLEANUP_MS / 2) },
        pauses: [],
      });
    }
    this.report.outcome('gave-up', { reason: 'the job deadline is near' });
  }
}

await run(async (order, report) => {
  // Either binding the Card offers, v1.0 or v0.3; a plain send asks for the task at once
  // (`polling`: returnImmediately), since a send the agent answers only when the turn
  // settles can outlast any read timeout, and GetTask follows the task anyway.
  const streamingClient = await clientFactory().createFromUrl(order.agentUrl);
  const card = await streamingClient.getAgentCard();
  const plainClient = await clientFactory({ polling: true }).createFromAgentCard(card);
  const consumer = new Reconciling(order, report, streamingClient, plainClient, Boolean(card.capabilities?.streaming));
  await consumer.run();
});
