"""A naive A2A consumer on the official Python client (a2a-sdk, as interop/install.sh pins
it), run by `meshsim check` (docs/check.md).

It trusts the Agent Card, as the origin incident's failure mode does: the Card says streaming, so it
streams the request; when the stream stops at input-required it resubscribes (the task
lives on, the Card implies) and applies every state change it sees; then it answers on the
same task id. It checks nothing the Card does not promise, so against a runtime that replays
history on resubscribe it applies states twice, and against one that reaps the task when the
stream closes it believes in a task that is gone.

Usage: meshsim check [...] -- python3 examples/consumers/python/naive.py
"""

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SubscribeToTaskRequest,
)

from meshsim_contract import INTERRUPTED, TERMINAL, Order, Report, outcome_of, run


class Naive:
    """The job's one task, as the consumer believes it is."""

    def __init__(self, order: Order, report: Report, client):
        self.order = order
        self.report = report
        self.client = client
        self.task_id: str | None = None
        self.context_id: str | None = None
        self.state = None
        self.artifacts: list[str] = []
        self.status_text = ''
        self.connections = 0
        self.messages = 0

    def message(self, text: str, task_id: str | None = None) -> Message:
        self.messages += 1
        return Message(
            message_id=f'msg-{self.order.seed}-{self.messages}',
            context_id=self.context_id or f'ctx-{self.order.seed}',
            task_id=task_id or '',
            role=Role.ROLE_USER,
            parts=[Part(text=text)],
        )

    def apply(self, event, connection: int, index: int, via: str) -> bool:
        """Applies one event; whether it ends what the consumer reads (a question or an end)."""
        if event.HasField('task'):
            task = event.task
            self.task_id = self.task_id or task.id
            self.context_id = task.context_id or self.context_id
            self.artifacts += [text_of(artifact.parts) for artifact in task.artifacts]
            status = task.status
        elif event.HasField('status_update'):
            update = event.status_update
            self.task_id = self.task_id or update.task_id
            self.context_id = update.context_id or self.context_id
            status = update.status
        elif event.HasField('artifact_update'):
            self.artifacts.append(text_of(event.artifact_update.artifact.parts))
            return False
        else:
            return False
        if status.HasField('message'):
            self.status_text = text_of(status.message.parts)
        if status.state != self.state:
            self.report.applied(self.task_id, status.state, connection, index, via)
            self.state = status.state
        return status.state in INTERRUPTED or status.state in TERMINAL

    async def read(self, stream, answering: bool = False) -> None:
        """Reads a stream until a question or an end, applying every event."""
        self.connections += 1
        connection = self.connections
        index = 0
        try:
            async for event in stream:
                before = self.state
                via = 'snapshot' if event.HasField('task') else 'status-update'
                settles = self.apply(event, connection, index, via)
                index += 1
                # An answer's stream may open with the question still pending.
                if settles and not (answering and self.state == before):
                    break
        except Exception as error:  # a cut stream, a closed connection: the naive keep going
            print(f'stream {connection}: {error!r}', flush=True)

    def outcome(self) -> bool:
        if self.state is None or self.task_id is None:
            return False
        return outcome_of(self.report, self.task_id, self.state, ''.join(self.artifacts),
                          self.status_text)

    async def run(self, streaming: bool) -> None:
        if not streaming:
            self.report.outcome('gave-up', reason='the Card does not promise streaming')
            return
        first = SendMessageRequest(message=self.message(self.order.request))
        await self.read(self.client.send_message(first))
        for _ in range(8):
            if self.outcome():
                return
            if self.task_id is None:
                self.report.outcome('gave-up', reason='the agent never named a task')
                return
            # The Card says streaming, so the stream is where the task lives.
            await self.read(self.client.subscribe(SubscribeToTaskRequest(id=self.task_id)))
            if self.outcome():
                return
            if self.state in INTERRUPTED and self.order.cancel_at_input_required:
                self.connections += 1
                try:
                    task = await self.client.cancel_task(CancelTaskRequest(id=self.task_id))
                    if task.status.state != self.state:
                        self.report.applied(self.task_id, task.status.state, self.connections,
                                            0, 'result')
                        self.state = task.status.state
                except Exception as error:
                    print(f'cancel: {error!r}', flush=True)
            elif self.state in INTERRUPTED:
                answer = SendMessageRequest(
                    message=self.message(self.order.answer, task_id=self.task_id))
                await self.read(self.client.send_message(answer), answering=True)
        if not self.outcome():
            self.report.outcome('gave-up', reason='no outcome after 8 turns')


def text_of(parts) -> str:
    return ''.join(part.text for part in parts)


async def main(order: Order, report: Report) -> None:
    timeout = httpx.Timeout(5.0, connect=1.0)
    async with httpx.AsyncClient(timeout=timeout) as http:
        card = await A2ACardResolver(http, order.agent_url).get_agent_card()
        client = await create_client(card, ClientConfig(streaming=True, httpx_client=http))
        naive = Naive(order, report, client)
        await naive.run(bool(card.capabilities.streaming))


if __name__ == '__main__':
    run(main)
