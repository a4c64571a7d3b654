"""How a pipeline reports a step that failed: the texts of each caller, and the error it raises.

One pipeline (``_pipeline``) serves three Crossplane callers that word a failed step differently:
the XR controller (``cannot run Composition pipeline step "s"``), classic render (``cannot run
pipeline step "s"``) and the Operation reconciler (``failed to invoke pipeline step "s"``). A step
fails in one of four places (:class:`Failure`): its input does not decode, a credential's Secret
cannot be read, a bootstrap requirement cannot be fetched, or the function cannot be run. Each
caller's :class:`StepTexts` holds its words for the first three and the call, and turns the
failure into the error the pipeline raises (:meth:`StepTexts.failure`): a composition keeps the
cause's class (``errors.wrap``); an Operation needs to know *where* the step failed, since
Crossplane records a different event for each and gives up at once on an input that does not
decode, so its texts raise an error that says so (``engine._operation``).

The caller picks its texts in :class:`~crossfn.engine.ComposeOptions` (``step_texts``), as it
picks its fetcher; the pipeline never asks which caller it runs for.
"""

from __future__ import annotations

import dataclasses
import enum

from crossfn import errors

__all__ = ["CLASSIC", "COMPOSITION", "OPERATION", "Failure", "OperationStepError", "StepTexts"]


class Failure(enum.Enum):
    """Where a step failed, before or while its function ran."""

    INPUT = "input"
    """The step's ``input`` is not a JSON object."""
    CREDENTIAL = "credential"
    """A ``credentials`` Secret could not be read, or does not exist."""
    BOOTSTRAP = "bootstrap"
    """A ``requirements`` resource or schema could not be fetched."""
    CALL = "call"
    """The function could not be reached or run (the requirements loop included)."""


@dataclasses.dataclass(frozen=True)
class StepTexts:
    """One caller's words for a failed step; ``{step}``, ``{credential}`` and ``{secret}`` are quoted Go-style."""

    call: str
    input: str
    credential: str
    missing_secret: str
    """The cause when the credential's Secret does not exist (the API server's NotFound text)."""

    def call_error(self, step: str) -> str:
        return self.call.format(step=errors.quote(step))

    def input_error(self, step: str) -> str:
        return self.input.format(step=errors.quote(step))

    def credential_error(self, step: str, credential: str, secret: str) -> str:
        return self.credential.format(
            step=errors.quote(step), credential=errors.quote(credential), secret=errors.quote(secret)
        )

    def secret_missing(self, secret: str) -> str:
        return self.missing_secret.format(secret=errors.quote(secret))

    def failure(self, kind: Failure, context: str, cause: errors.CrossfnError) -> errors.CrossfnError:
        """The error the pipeline raises for a step that failed at ``kind``: ``<context>: <cause>``.

        A composition keeps the cause's class, so callers branch on it as before the step wrapped it.
        """
        return errors.wrap(cause, context)


COMPOSITION = StepTexts(
    call="cannot run Composition pipeline step {step}",
    input="cannot unmarshal input for Composition pipeline step {step}",
    credential="cannot get Composition pipeline step {step} credential {credential} from Secret",
    missing_secret="secrets {secret} not found",
)
"""The XR controller's texts (upstream core-2.3), and render's default mode's."""

CLASSIC = StepTexts(
    call="cannot run pipeline step {step}",
    input="cannot unmarshal input for Composition pipeline step {step}",
    credential="cannot get credentials from secret {secret}",
    missing_secret="secret {secret} not found",
)
"""Classic render's texts (upstream core-3.5)."""


class OperationStepError(errors.CrossfnError):
    """A step of an Operation's pipeline failed at :attr:`failure`; the Operation reconciler branches on it.

    Crossplane records a different event for each place a step fails and gives up at once on an
    input that does not decode (upstream ops-1 step 7). ``context`` is the text without its cause:
    that is the ``Succeeded`` condition's message for an input that does not decode.
    """

    def __init__(self, message: str, *, failure: Failure, context: str) -> None:
        super().__init__(message)
        self.failure = failure
        self.context = context


class _OperationTexts(StepTexts):
    def failure(self, kind: Failure, context: str, cause: errors.CrossfnError) -> errors.CrossfnError:
        error = OperationStepError(f"{context}: {cause}", failure=kind, context=context)
        error.__cause__ = cause
        return error


OPERATION: StepTexts = _OperationTexts(
    call="failed to invoke pipeline step {step}",
    input="cannot unmarshal input for operation pipeline step {step}",
    credential="cannot get operation pipeline step {step} credential {credential} from Secret",
    missing_secret="secrets {secret} not found",
)
"""The Operation reconciler's texts (upstream ops-1 step 7); its errors are :class:`OperationStepError`."""
