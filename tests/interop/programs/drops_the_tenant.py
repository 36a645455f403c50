"""A consumer that drops the tenant: the Python reconciling example, its clients built from
the Agent Card with every interface's `tenant` cleared, as a client configured with the
agent's URL alone would be. Against a runtime that is one tenant of a shared endpoint its
calls reach no agent (where the example itself holds); `meshsim check` must say so
(tests/interop/check.rs runs it).

Usage: meshsim check [...] -- python3 tests/interop/programs/drops_the_tenant.py
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / 'examples/consumers/python'))

import reconciling  # noqa: E402
from meshsim_contract import run  # noqa: E402

create_client = reconciling.create_client


async def create_client_without_tenant(card, config):
    for interface in card.supported_interfaces:
        interface.tenant = ''
    return await create_client(card, config)


reconciling.create_client = create_client_without_tenant

if __name__ == '__main__':
    run(reconciling.main)
