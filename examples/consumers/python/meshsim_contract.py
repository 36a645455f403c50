"""The `meshsim check` contract for Python consumers (docs/check.md): the job a program is
started with, and the report it writes, one JSON line per state applied, task abandoned,
deadline enforced, and its outcome last.

Both examples beside this file use it; it needs only the standard library and a2a-sdk's
types (for state names).
"""

import asyncio
import json
import os
import time
from dataclasses import dataclass

from a2a.types.a2a_pb2 import TaskState

# What a task state is called in the report: the origin note's lowercase names.
STATE_NAMES = {
    TaskState.TASK_STATE_SUBMITTED: 'submitted',
    TaskState.TASK_STATE_WORKING: 'working',
    TaskState.TASK_STATE_INPUT_REQUIRED: 'input-required',
    TaskState.TASK_STATE_AUTH_REQUIRED: 'auth-required',
    TaskState.TASK_STATE_COMPLETED: 'completed',
    TaskState.TASK_STATE_FAILED: 'failed',
    TaskState.TASK_STATE_CANCELED: 'canceled',
    TaskState.TASK_STATE_REJECTED: 'rejected',
}
INTERRUPTED = {TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED}
TERMINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
}


@dataclass
class Order:
    """The job, as meshsim hands it over in the environment."""

    agent_url: str
    dialect: str
    job: str
    request: str
    answer: str
    cancel_at_input_required: bool
    submitted_deadline_s: float
    working_deadline_s: float
    job_deadline_s: float
    seed: int
    report: str
    # When the job's deadline passes, on `time.monotonic()`: counted from when the order was
    # read, so that the time spent before the work (the Card fetched, the clients made)
    # counts against it too.
    deadline_at: float

    def job_time_left(self) -> float:
        """Seconds until the job's deadline."""
        return max(0.0, self.deadline_at - time.monotonic())

    @staticmethod
    def from_env() -> 'Order':
        env = os.environ
        job_deadline_s = int(env['MESHSIM_JOB_DEADLINE_MS']) / 1000
        return Order(
            agent_url=env['MESHSIM_AGENT_URL'],
            dialect=env['MESHSIM_DIALECT'],
            job=env['MESHSIM_JOB'],
            request=env['MESHSIM_REQUEST'],
            answer=env['MESHSIM_ANSWER'],
            cancel_at_input_required=env['MESHSIM_CANCEL_AT_INPUT_REQUIRED'] == '1',
            submitted_deadline_s=int(env['MESHSIM_SUBMITTED_DEADLINE_MS']) / 1000,
            working_deadline_s=int(env['MESHSIM_WORKING_DEADLINE_MS']) / 1000,
            job_deadline_s=job_deadline_s,
            seed=int(env['MESHSIM_SEED']),
            report=env['MESHSIM_REPORT'],
            deadline_at=time.monotonic() + job_deadline_s,
        )


def state_name(state: int) -> str:
    return STATE_NAMES.get(state, 'unknown')


class Report:
    """The report file, written a line at a time (so a crash leaves what was done)."""

    def __init__(self, path: str):
        self._file = open(path, 'w', encoding='utf-8')
        self.finished = False

    def _line(self, **fields) -> None:
        self._file.write(json.dumps(fields) + '\n')
        self._file.flush()

    def applied(self, task: str, state: int, connection: int, index: int, via: str) -> None:
        """`via`: snapshot (a Task on a stream), status-update, or result (a Task answered
        by a send, get or cancel)."""
        self._line(
            kind='applied',
            task=task,
            state=state_name(state),
            source={'connection': connection, 'index': index, 'via': via},
        )

    def deadline(self, task: str, state: int, limit_ms: int) -> None:
        self._line(kind='deadline', task=task, state=state_name(state), limit_ms=limit_ms)

    def abandoned(self, task: str, reason: str, cancel: dict) -> None:
        self._line(kind='abandoned', task=task, reason=reason, cancel=cancel)

    def outcome(self, outcome: str, task: str | None = None, artifact: str | None = None,
                reason: str | None = None) -> None:
        fields = {'kind': 'outcome', 'outcome': outcome}
        if task is not None:
            fields['task'] = task
        if artifact is not None:
            fields['artifact'] = artifact
        if reason is not None:
            fields['reason'] = reason
        self._line(**fields)
        self._file.close()
        self.finished = True


def outcome_of(report: Report, task_id: str, state: int, artifact: str, reason: str) -> bool:
    """Writes the outcome a terminal `state` stands for; whether it was terminal."""
    if state == TaskState.TASK_STATE_COMPLETED:
        report.outcome('completed', task=task_id, artifact=artifact)
    elif state in (TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_REJECTED):
        report.outcome('failed', task=task_id, reason=reason or 'task failed')
    elif state == TaskState.TASK_STATE_CANCELED:
        report.outcome('canceled', task=task_id)
    else:
        return False
    return True


def run(main) -> None:
    """Runs `await main(order, report)` for the order in the environment, within the job's
    deadline; a deadline passed or any failure becomes a gave-up outcome."""

    async def to_an_outcome() -> None:
        order = Order.from_env()
        report = Report(order.report)
        try:
            await asyncio.wait_for(main(order, report), order.job_time_left())
        except TimeoutError:
            report.outcome('gave-up', reason='job deadline passed')
        except Exception as error:
            if not report.finished:
                report.outcome('gave-up', reason=repr(error))

    asyncio.run(to_an_outcome())
