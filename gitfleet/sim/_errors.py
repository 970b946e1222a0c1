"""API errors as the Kubernetes API server reports them: a `Status` object with an HTTP code,
a machine-readable reason and, for object errors, details naming the object.

Clients branch on `code` and `reason` (the kubernetes client raises `ApiException(status=code)`
and callers read `reason` from the body), so both must be what a real server sends.
"""

from __future__ import annotations

from typing import Any

from gitfleet.sim import _json

REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    500: "InternalError",
    503: "ServiceUnavailable",
}


class ApiError(Exception):
    """A request the simulated server refuses; `status()` is the body it answers with."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        reason: str | None = None,
        details: _json.Obj | None = None,
    ) -> None:
        """`reason` "" leaves it out, as the server does for errors it does not classify."""
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = REASONS.get(code, "Unknown") if reason is None else reason
        self.details = details

    def status(self) -> _json.Obj:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "code": self.code,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details is not None:
            body["details"] = self.details
        return body


def object_details(group: str, plural: str, name: str, **extra: Any) -> _json.Obj:
    """`details` of an object error: the server names the resource (plural), not the kind."""
    details: _json.Obj = {"name": name, "group": group, "kind": plural}
    if not group:
        del details["group"]
    details.update(extra)
    return details


def qualified(group: str, plural: str) -> str:
    """How error messages name a resource: `deployments.apps`, `configmaps`."""
    return f"{plural}.{group}" if group else plural


def not_found(group: str, plural: str, name: str) -> ApiError:
    return ApiError(
        404,
        f'{qualified(group, plural)} "{name}" not found',
        details=object_details(group, plural, name),
    )


def already_exists(group: str, plural: str, name: str, *, being_deleted: bool = False) -> ApiError:
    """`being_deleted`: the object in the way has a deletionTimestamp, which the server says."""
    prefix = "object is being deleted: " if being_deleted else ""
    return ApiError(
        409,
        f'{prefix}{qualified(group, plural)} "{name}" already exists',
        reason="AlreadyExists",
        details=object_details(group, plural, name),
    )


def conflict(group: str, plural: str, name: str, why: str) -> ApiError:
    return ApiError(
        409,
        f'Operation cannot be fulfilled on {qualified(group, plural)} "{name}": {why}',
        details=object_details(group, plural, name),
    )


def invalid(group: str, kind: str, name: str, causes: list[tuple[str, str]]) -> ApiError:
    """422 Invalid; `causes` are (field, message), e.g. ("metadata.name", "Required value").
    The message is apimachinery's NewInvalid: the one cause, or several as an aggregate,
    `[cause1, cause2]` (a cause repeated word for word printed once), each in full; the
    details list every cause."""
    texts = list(dict.fromkeys(f"{field}: {message}" for field, message in causes))
    text = texts[0] if len(texts) == 1 else f"[{', '.join(texts)}]"
    what = f"{kind}.{group}" if group else kind
    return ApiError(
        422,
        f'{what} "{name}" is invalid: {text}',
        details={
            **({"name": name} if name else {}),
            **({"group": group} if group else {}),
            **({"kind": kind} if kind else {}),
            "causes": [
                {"reason": _cause_reason(message), "message": message, "field": field}
                for field, message in causes
            ],
        },
    )


_CAUSE_REASONS = (
    ("Required value", "FieldValueRequired"),
    ("Unsupported value", "FieldValueNotSupported"),
    ("Forbidden", "FieldValueForbidden"),
    ("Duplicate value", "FieldValueDuplicate"),
    ("Too long", "FieldValueTooLong"),
)


def _cause_reason(message: str) -> str:
    """A cause's reason, from how its message starts (apimachinery field.ErrorType)."""
    return next(
        (reason for start, reason in _CAUSE_REASONS if message.startswith(start)),
        "FieldValueInvalid",
    )


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def deleted(group: str, plural: str, obj: _json.Obj) -> _json.Obj:
    """The `Status` Success a real server answers a deletion with, for kinds whose registry
    does not return the deleted object."""
    metadata = obj.get("metadata") or {}
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": object_details(group, plural, metadata.get("name", ""), uid=metadata.get("uid")),
    }
