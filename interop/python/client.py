"""The official Python A2A client (a2a-sdk 1.3.0's `create_client`, JSON-RPC transport) as a
witness: it drives an agent through a whole lifecycle and prints, as one JSON object on
stdout, what it parsed at each step, for tests/interop_python.rs to compare with what the
agent served.

Steps: a streamed first turn (to the agent's question), a streamed follow-up answering it,
`get_task` of the task the follow-up completed, `list_tasks`, a second task cancelled while it waits, and
`get_task` of a task that does not exist.

Usage: client.py URL   (URL is the agent's base URL; its Card is read from there)
"""

import asyncio
import json
import sys

from a2a.client import ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)


def state_name(state):
    return TaskState.Name(state)


def message(text, message_id, task_id=None, context_id=None):
    msg = Message(role=Role.ROLE_USER, message_id=message_id, parts=[Part(text=text)])
    if task_id:
        msg.task_id = task_id
    if context_id:
        msg.context_id = context_id
    return SendMessageRequest(message=msg)


async def turn(client, request):
    """Sends one message; the task id, context id and the states the stream reported."""
    task_id, context_id, states = None, None, []
    async for event in client.send_message(request):
        if event.HasField("task"):
            task_id, context_id = event.task.id, event.task.context_id
            states.append(state_name(event.task.status.state))
        elif event.HasField("status_update"):
            task_id = event.status_update.task_id
            context_id = event.status_update.context_id
            states.append(state_name(event.status_update.status.state))
    return task_id, context_id, states


def describe(task):
    return {
        "id": task.id,
        "state": state_name(task.status.state),
        "history": [
            {"role": Role.Name(m.role), "text": "".join(p.text for p in m.parts)}
            for m in task.history
        ],
        "artifacts": [
            {"name": a.name, "text": "".join(p.text for p in a.parts)} for a in task.artifacts
        ],
    }


async def main(url):
    client = await create_client(url, client_config=ClientConfig(streaming=True))
    report = {}
    task_id, context_id, states = await turn(client, message("plan a trip", "py-1"))
    report["first_turn"] = {"task_id": task_id, "states": states}
    # A runtime that reaped the task answers the follow-up with a new one; read that back.
    answered, _, states = await turn(client, message("markdown", "py-2", task_id, context_id))
    report["follow_up"] = {"task_id": answered, "states": states}
    report["get_task"] = describe(await client.get_task(GetTaskRequest(id=answered)))
    listed = await client.list_tasks(ListTasksRequest())
    report["list_tasks"] = {"ids": [task.id for task in listed.tasks]}
    waiting, _, _ = await turn(client, message("book a table", "py-3"))
    try:
        report["cancel_task"] = describe(await client.cancel_task(CancelTaskRequest(id=waiting)))
    except Exception as error:  # noqa: BLE001 - the error class is what is reported
        report["cancel_task"] = {"error": type(error).__name__}
    try:
        await client.get_task(GetTaskRequest(id="no-such-task"))
        report["unknown_task"] = {"error": None}
    except Exception as error:  # noqa: BLE001 - the error class is what is reported
        report["unknown_task"] = {"error": type(error).__name__}
    await client.close()
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: client.py URL", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(sys.argv[1]))
