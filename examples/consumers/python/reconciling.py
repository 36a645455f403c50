"""A reconciling A2A consumer on the official Python client (a2a-sdk, as interop/install.sh
pins it), run by `meshsim check` (docs/check.md).

It does not take the Agent Card's word for the task's lifecycle:

- it applies a state only when it moves the task forward (never the current state again,
  never `submitted` twice, nothing after the end), so replayed history is not applied twice;
- it does not resubscribe to learn where a task stands: it asks (`GetTask`), a sync point;
- when the agent no longer knows the task (reaped with its stream, lost in a crash) or
  will not go on with it (a follow-up refused with -32001 or answered with another task),
  it cancels the task, which says which it was, and starts the job again without streams
  for that agent, since its tasks may not outlive them;
- it takes a completed task's artifacts from `GetTask`, not from stream chunks that may
  have been cut short or replayed;
- it owns the deadlines for `submitted` and `working`, on a stream too: past one it cancels
  the task and starts again;
- it gives up cleanly where the agent leaves it no way on: when the agent will not cancel a
  task it must cancel (recording the refusal), and before the job's own deadline, canceling
  the task in hand first;
- a cancel that fails on the way (the connection reset, the agent out of reach) is tried
  again a few times, since only the agent's answer says what became of the task.

Usage: meshsim check [...] -- python3 examples/consumers/python/reconciling.py
"""

import asyncio
import time

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.constants import TransportProtocol
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError

from meshsim_contract import INTERRUPTED, TERMINAL, Order, Report, outcome_of, run, state_name

POLL_SECONDS = 0.2
MAX_DISPATCHES = 6
# Given up this long before the job's deadline, to cancel the task in hand first.
CLEANUP_SECONDS = 2.0
# A cancel that fails on the way is tried again after these pauses (seconds): the agent may
# be out of reach for a moment, and a task left uncanceled is left running.
CANCEL_RETRY_PAUSES = (0.5, 1.0, 2.0)


class TaskGone(Exception):
    """The agent no longer knows the task."""


class Tracked:
    """One task as far as the consumer applied it."""

    def __init__(self):
        self.task_id: str | None = None
        self.context_id: str | None = None
        self.state = None
        self.since = time.monotonic()
        self.artifacts: dict[str, str] = {}
        # Whether the artifacts are the whole task's, as GetTask answered it.
        self.artifacts_whole = False
        self.status_text = ''

    @staticmethod
    def named(task_id: str) -> 'Tracked':
        task = Tracked()
        task.task_id = task_id
        return task


class Reconciling:
    def __init__(self, order: Order, report: Report, streaming_client, plain_client,
                 streaming: bool):
        self.order = order
        self.report = report
        self.streaming_client = streaming_client
        self.plain_client = plain_client
        self.streaming = streaming
        self.connections = 0
        self.messages = 0
        # The task being followed, for the cleanup before the job's deadline.
        self.current: Tracked | None = None
        # Tasks the agent started that are not the one followed: canceled when found.
        self.strays: list[str] = []

    def message(self, text: str, task: Tracked, follow_up: bool) -> Message:
        self.messages += 1
        return Message(
            message_id=f'msg-{self.order.seed}-{self.messages}',
            context_id=task.context_id or f'ctx-{self.order.seed}-{self.messages}',
            task_id=task.task_id if follow_up else '',
            role=Role.ROLE_USER,
            parts=[Part(text=text)],
        )

    def apply(self, task: Tracked, state, connection: int, index: int, via: str) -> None:
        """Applies `state` if it moves the task forward."""
        current = task.state
        if current in TERMINAL or state == current:
            return
        if state == TaskState.TASK_STATE_SUBMITTED and current is not None:
            return  # history replayed, or a runtime that restarts the turn: not news
        if state == TaskState.TASK_STATE_UNSPECIFIED:
            return
        self.report.applied(task.task_id, state, connection, index, via)
        task.state = state
        task.since = time.monotonic()

    def take(self, task: Tracked, event, connection: int, index: int, via: str) -> bool:
        """Takes in one event; whether it ends what the consumer reads."""
        if event.HasField('task'):
            snapshot = event.task
            if task.task_id is None:
                task.task_id = snapshot.id
            self.same_task(task, snapshot.id)
            task.context_id = snapshot.context_id or task.context_id
            for artifact in snapshot.artifacts:
                task.artifacts[artifact.artifact_id] = text_of(artifact.parts)
            status = snapshot.status
        elif event.HasField('status_update'):
            update = event.status_update
            if task.task_id is None:
                task.task_id = update.task_id
            self.same_task(task, update.task_id)
            task.context_id = update.context_id or task.context_id
            status = update.status
        elif event.HasField('artifact_update'):
            update = event.artifact_update
            artifact = update.artifact
            text = text_of(artifact.parts)
            if update.append and artifact.artifact_id in task.artifacts:
                task.artifacts[artifact.artifact_id] += text
            else:
                task.artifacts[artifact.artifact_id] = text
            task.artifacts_whole = False
            return False
        else:
            return False
        if status.HasField('message'):
            task.status_text = text_of(status.message.parts)
        self.apply(task, status.state, connection, index, via)
        return task.state in INTERRUPTED or task.state in TERMINAL

    def same_task(self, task: Tracked, task_id: str) -> None:
        """An answer about another task than the one followed (a follow-up that started a
        new task) means the agent no longer has ours."""
        if task_id and task_id != task.task_id:
            self.strays.append(task_id)
            raise TaskGone()

    async def send(self, task: Tracked, message: Message) -> None:
        """Sends a message and takes in what comes back, streamed or whole."""
        self.connections += 1
        connection = self.connections
        before = task.state
        client = self.streaming_client if self.streaming else self.plain_client
        index = 0
        events = client.send_message(SendMessageRequest(message=message)).__aiter__()
        try:
            while True:
                # A stream the agent keeps open (keep-alives, a stalled task) is read only
                # until the state's deadline; then GetTask and the deadline take over.
                try:
                    event = await asyncio.wait_for(events.__anext__(), self.time_left(task))
                except StopAsyncIteration:
                    break
                except asyncio.TimeoutError:
                    print(f'send {connection}: {state_name(task.state)} past its deadline',
                          flush=True)
                    break
                via = ('snapshot' if event.HasField('task') else 'status-update') \
                    if self.streaming else 'result'
                settles = self.take(task, event, connection, index, via)
                index += 1
                if settles and task.state != before:
                    break
        except TaskGone:
            raise
        except TaskNotFoundError as error:
            raise TaskGone() from error
        except Exception as error:  # a cut stream or a reset: where the task is, GetTask says
            print(f'send {connection}: {error!r}', flush=True)
        finally:
            await events.aclose()

    async def confirm(self, task: Tracked) -> None:
        """Asks the agent where the task stands."""
        self.connections += 1
        try:
            snapshot = await self.plain_client.get_task(GetTaskRequest(id=task.task_id))
        except TaskNotFoundError as error:
            raise TaskGone() from error
        except Exception as error:
            print(f'get {self.connections}: {error!r}', flush=True)
            return
        for artifact in snapshot.artifacts:
            task.artifacts[artifact.artifact_id] = text_of(artifact.parts)
        task.artifacts_whole = True
        if snapshot.status.HasField('message'):
            task.status_text = text_of(snapshot.status.message.parts)
        self.apply(task, snapshot.status.state, self.connections, 0, 'result')

    async def ask_cancel(self, task: Tracked):
        """Asks the agent to cancel the task: the report's `cancel` result, and the task the
        agent answered with (None when it answered none)."""
        self.connections += 1
        try:
            answered = await self.plain_client.cancel_task(CancelTaskRequest(id=task.task_id))
        except TaskNotFoundError:
            return {'result': 'task-gone'}, None
        except TaskNotCancelableError:
            return {'result': 'not-cancelable'}, None
        except Exception as error:
            return {'result': 'failed', 'error': repr(error)}, None
        return {'result': 'answered', 'state': state_name(answered.status.state)}, answered

    async def cancel(self, task: Tracked, reason: str, pauses=CANCEL_RETRY_PAUSES) -> None:
        """Cancels a task the consumer gives up on and records it. A cancel that fails on
        the way is tried again after each of `pauses`: only the agent's answer (canceled,
        gone, or a refusal) says what became of the task."""
        cancel, _ = await self.ask_cancel(task)
        for pause in pauses:
            if cancel['result'] != 'failed':
                break
            await asyncio.sleep(pause)
            cancel, _ = await self.ask_cancel(task)
        self.report.abandoned(task.task_id, reason, cancel)

    def limit(self, task: Tracked) -> float | None:
        """How long the task may stay in its state, if the job bounds it."""
        return {
            TaskState.TASK_STATE_SUBMITTED: self.order.submitted_deadline_s,
            TaskState.TASK_STATE_WORKING: self.order.working_deadline_s,
        }.get(task.state)

    def time_left(self, task: Tracked) -> float | None:
        """Seconds until the task's state outstays its limit (None: no limit)."""
        limit = self.limit(task)
        if limit is None:
            return None
        return max(0.0, limit - (time.monotonic() - task.since))

    def deadline_passed(self, task: Tracked) -> float | None:
        """The limit the task's state has outstayed, if it has."""
        return self.limit(task) if self.time_left(task) == 0.0 else None

    async def cancel_waiting(self, task: Tracked) -> bool:
        """Cancels the task the job cancels at input-required; whether the job has its
        outcome (an agent that will not cancel it leaves the job no way on)."""
        cancel, answered = await self.ask_cancel(task)
        if cancel['result'] == 'task-gone':
            raise TaskGone()
        if cancel['result'] == 'failed':  # where the task is, GetTask says on the next round
            print(f'cancel {self.connections}: {cancel["error"]}', flush=True)
            await asyncio.sleep(POLL_SECONDS)
            return False
        if answered is not None:
            self.apply(task, answered.status.state, self.connections, 0, 'result')
            if task.state not in INTERRUPTED:
                return False
        self.report.abandoned(task.task_id, 'the agent would not cancel it', cancel)
        self.report.outcome('gave-up', reason='the agent would not cancel the task')
        return True

    async def dispatch(self) -> bool:
        """Runs one task of the job; whether the job has its outcome."""
        task = Tracked()
        self.current = task
        try:
            await self.send(task, self.message(self.order.request, task, follow_up=False))
            if task.task_id is None:
                await asyncio.sleep(POLL_SECONDS)
                return False
            # The question answered last, by when the task entered it: a question is
            # answered once, however often the agent reports it.
            answered_since = None
            while True:
                if task.state == TaskState.TASK_STATE_COMPLETED and not task.artifacts_whole:
                    # A stream's chunks may have been cut short or replayed: the artifacts
                    # are taken as GetTask answers them (once; a failed get keeps them).
                    await self.confirm(task)
                    task.artifacts_whole = True
                if outcome_of(self.report, task.task_id, task.state,
                              ''.join(task.artifacts.values()), task.status_text):
                    return True
                await self.confirm(task)
                if task.state in TERMINAL:
                    continue
                limit = self.deadline_passed(task)
                if limit is not None:
                    self.report.deadline(task.task_id, task.state, int(limit * 1000))
                    await self.cancel(task, 'deadline passed')
                    return False
                if task.state in INTERRUPTED and self.order.cancel_at_input_required:
                    if await self.cancel_waiting(task):
                        return True
                elif task.state in INTERRUPTED and answered_since != task.since:
                    answered_since = task.since
                    await self.send(task, self.message(self.order.answer, task, follow_up=True))
                else:
                    await asyncio.sleep(POLL_SECONDS)
        except TaskGone:
            # Its tasks do not outlive their streams (or the agent lost it): start again,
            # without streams. A follow-up refused with -32001, or answered with another
            # task, does not say the task is gone: a cancel says whether it is, and ends it
            # if not (or records the agent's refusal).
            if task.task_id:
                await self.cancel(task, 'the agent lost the task or will not go on with it')
            for stray in self.strays:
                await self.cancel(Tracked.named(stray), 'started by the agent in our place')
            self.strays.clear()
            self.streaming = False
            return False

    async def dispatches(self) -> None:
        for _ in range(MAX_DISPATCHES):
            if await self.dispatch():
                return
        self.report.outcome('gave-up', reason=f'no outcome after {MAX_DISPATCHES} tasks')

    async def run(self) -> None:
        """The dispatches, given up before the job's deadline with the task in hand
        canceled, so that nothing is left running on the agent."""
        try:
            # From the job's deadline, not from now: the Card and the clients took time too.
            await asyncio.wait_for(self.dispatches(),
                                   max(0.0, self.order.job_time_left() - CLEANUP_SECONDS))
        except asyncio.TimeoutError:
            if self.report.finished:
                return
            task = self.current
            if task is not None and task.task_id and task.state not in TERMINAL:
                # Once: the job's deadline leaves no time to try again.
                await self.cancel(task, 'the job deadline is near', pauses=())
            self.report.outcome('gave-up', reason='the job deadline is near')


def text_of(parts) -> str:
    return ''.join(part.text for part in parts)


async def main(order: Order, report: Report) -> None:
    timeout = httpx.Timeout(5.0, connect=1.0)
    async with httpx.AsyncClient(timeout=timeout) as http:
        card = await A2ACardResolver(http, order.agent_url).get_agent_card()
        # Either binding the Card offers; a plain send asks for the task at once
        # (`polling`: return_immediately), since a send the agent answers only when the
        # turn settles can outlast any read timeout, and GetTask follows the task anyway.
        bindings = [TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON]
        streaming_client = await create_client(
            card, ClientConfig(streaming=True, httpx_client=http,
                               supported_protocol_bindings=bindings))
        plain_client = await create_client(
            card, ClientConfig(streaming=False, polling=True, httpx_client=http,
                               supported_protocol_bindings=bindings))
        consumer = Reconciling(order, report, streaming_client, plain_client,
                               bool(card.capabilities.streaming))
        await consumer.run()


if __name__ == '__main__':
    run(main)
