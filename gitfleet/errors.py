"""The error hierarchy: what went wrong, and where the user must look to fix it.

Input errors carry an `Origin` and print as `path:line:col: message`, the format editors and
CI annotations understand. Errors from third-party libraries are kept as `__cause__`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gitfleet.model.origin import Origin


class GitfleetError(Exception):
    """Base of every error gitfleet raises on purpose."""


class UsageError(GitfleetError):
    """The command was asked something that cannot apply (e.g. a revision of a plain folder);
    the command line maps it to click's usage error (exit 2)."""


class ListenError(GitfleetError):
    """An address to serve on (webhook, metrics) cannot be listened on: in use, not this
    machine's, unknown."""


class InputError(GitfleetError):
    """The user's input is wrong; `origin` says where."""

    def __init__(self, origin: Origin, message: str) -> None:
        super().__init__(message)
        self.origin = origin
        self.message = message

    def __str__(self) -> str:
        return self.origin.says(self.message)


class SourceError(InputError):
    """A source cannot be read: not a repository, unknown revision, unreadable file."""


class YamlError(InputError):
    """A file is not acceptable YAML (syntax, duplicate keys, tags, size, depth, aliases)."""


class SchemaError(InputError):
    """A document does not match its kind's schema (unknown, missing or mistyped field)."""


class DanglingReferenceError(InputError):
    """A document names an object that does not exist."""


class LuaError(InputError):
    """A Lua customization failed to compile or to run."""


class OverrideError(InputError):
    """An override policy cannot be applied to a manifest."""


class InterpretError(GitfleetError):
    """A built-in interpreter rule cannot read an object (a field of the wrong type, a value
    Kubernetes would reject). `keys` is the field's path inside the object when the problem is
    in the object itself, so the caller can point at it with `origin.at(*keys)`."""

    def __init__(self, message: str, keys: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.keys = keys


class FitError(GitfleetError):
    """No cluster fits a binding; `diagnosis` holds each cluster's verdict."""

    def __init__(self, message: str, diagnosis: Any) -> None:
        super().__init__(message)
        self.diagnosis = diagnosis


class RefConflictError(GitfleetError):
    """A compare-and-swap ref update lost: someone else moved the ref first."""


class ForeignHistoryError(GitfleetError):
    """A ref that renders are committed to (the rendered branch, a cluster's works ref) is at
    a commit that is not a render: building on it would make other history the rendered one."""


class ClusterAPIError(GitfleetError):
    """A member cluster's API refused a request; `status` is the server's Status payload."""

    def __init__(self, message: str, status: dict[str, Any] | None = None, code: int = 0) -> None:
        super().__init__(message)
        self.status = status or {}
        self.code = code


class NotFoundError(ClusterAPIError):
    """404 from a member cluster."""


class ConflictError(ClusterAPIError):
    """409 from a member cluster."""
