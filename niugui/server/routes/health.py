"""``/healthz`` (is the server serving?) and ``/metrics`` (Prometheus)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from ..services import AppServicesDep

router = APIRouter()


# async: it reads the hub, which lives on the event loop
@router.get("/healthz")
async def healthz(svc: AppServicesDep) -> dict[str, Any]:
    """``ok``, or ``degraded`` with the ids of tables kept out of play (their events do not replay):
    the server still serves every other table, so it answers 200 either way."""
    quarantined = sorted(svc.hub.quarantined)
    if svc.node is not None:  # a cluster node: can it reach Redis and the database?
        report = await svc.node.health()
        report["status"] = "degraded" if quarantined else "ok"
        if quarantined:
            report["quarantined"] = quarantined
        if "down" in (report["redis"], report["db"]):
            report["status"] = "down"
            # FastAPI takes the annotation for the answer's model, which a Response may not be in
            return JSONResponse(report, status_code=503)  # type: ignore[return-value]
        return report
    if quarantined:
        return {"status": "degraded", "quarantined": quarantined}
    return {"status": "ok"}


@router.get("/metrics")
def prometheus(svc: AppServicesDep) -> Response:
    """The app's metrics in Prometheus' text format."""
    return Response(svc.metrics.render(), media_type="text/plain; version=0.0.4")
