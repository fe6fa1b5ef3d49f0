"""Issue 15, finding 14: every HTTP route, fuzzed from the app's own OpenAPI schema with schemathesis
(valid and invalid inputs alike), answers without a 500. Bounded: a few dozen examples per route."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from server_harness import Server

from niugui.server.app import create_app
from niugui.server.config import Config

schema = schemathesis.openapi.from_dict(create_app(Config()).openapi())
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # The fuzzer is one client asking as fast as it can: exempt it from the per-address limits so
    # that it meets the routes themselves, not their 429.
    srv = Server(
        tmp_path_factory.mktemp("fuzz") / "data",
        "--exempt",
        "127.0.0.1",
        "--limit",
        "http_account_rate=10000",
        "--limit",
        "http_account_burst=10000",
        "--limit",
        "login_failures_per_account_hour=100000",
    ).start()
    yield srv
    srv.stop()
    log = Path(srv.log).read_text()
    assert "Traceback" not in log, log[-3000:]


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_no_route_answers_500(case: schemathesis.Case, fuzz_server: Server) -> None:
    response = case.call(base_url=fuzz_server.url, timeout=20)
    assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text[:300])
