"""An adapter's transcripts: the one it replays, the one it records into, the one it resumes.

``TranscriptBinding`` is built once per adapter from its mode and the ``transcript=``,
``recorder=``, ``overwrite=`` and ``prior=`` keywords, and does nothing but bind,
check and write:

- replay (``mode="replay"``): reads ``transcript=``, recorded under the same rules
  (schemas, instructions, adapter state) or refused;
- live and record: writes into ``recorder=`` (a new ``Transcript`` in record mode
  when none is given; a path is journalled as it goes and saved at ``end``, and one
  that already holds a transcript is refused unless ``overwrite=True`` or ``prior=``
  resumes it);
- ``prior=``: a half-finished run whose paid answers are carried into the new
  recording first and answered from before anything is asked again.

The prior is read before the recorder opens its journal: resuming from the journal
(or the file) it is about to write never loses what was paid for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.agents import DecisionRequest, Every, RunInfo
from workbench.errors import ConfigError
from workbench.integrations import _recorder
from workbench.integrations._recorder import AdapterInfo, journal_path
from workbench.integrations._replay import (
    refuse_a_changed_preset,
    refuse_other_schemas,
    replayed_exchange,
    require_transcript,
    stamp_preset,
)
from workbench.transcript import Exchange, Transcript


class TranscriptBinding:
    """The transcripts one arm reads or writes; see the module doc."""

    def __init__(
        self,
        name: str,
        mode: str,
        every: Every,
        rules: tuple[AdapterInfo, type, dict[str, Any]],
        options: dict[str, Any],
    ) -> None:
        self.name, self.mode, self.every = name, mode, every
        self.info, self.adapter_type, self.state = rules
        self.prior = self._bind_prior(options.get("prior"))
        self.replayed, self.recorder, self.save_to = self._bind(
            options.get("transcript"), options.get("recorder"), options.get("overwrite", False)
        )

    @property
    def transcript(self) -> Transcript | None:
        """The transcript read (replay) or written (live and record), if any."""
        return self.replayed if self.mode == "replay" else self.recorder

    def _bind(
        self, transcript: Any, recorder: Any, overwrite: bool
    ) -> tuple[Transcript | None, Transcript | None, Path | None]:
        if self.mode == "replay":
            return self._bind_replay(transcript, recorder), None, None
        target = _recorder.recorder_given(transcript, recorder, self.name, self.mode)
        if target is None:
            if self.mode != "record":
                return None, None, None
            return None, self._carry_prior(self._stamp(Transcript())), None
        if isinstance(target, Transcript):
            return None, self._carry_prior(self._stamp(target)), None
        path = Path(target)
        _recorder.refuse_to_overwrite(
            path, self.name, overwrite=overwrite, resuming=self.prior is not None
        )
        fresh = self._carry_prior(self._stamp(Transcript(path=path)))
        fresh.journal(journal_path(path))
        return None, fresh, path

    def _bind_replay(self, transcript: Any, recorder: Any) -> Transcript:
        if transcript is None:
            raise ConfigError(f"arm {self.name!r}: mode='replay' needs transcript=")
        if recorder is not None:
            raise ConfigError(f"arm {self.name!r}: a replay records nothing; drop recorder=")
        replayed = require_transcript(transcript, purpose=f"replay of arm {self.name!r}")
        self._check_recorded_under_same_rules(replayed)
        return replayed

    def _carry_prior(self, recorder: Transcript) -> Transcript:
        """Every answer the prior run paid for goes into the new recording first."""
        for paid in self.prior or ():
            if not _recorder.is_budget_stop(paid.error):
                recorder.add(
                    paid.key,
                    paid.input,
                    paid.response,
                    day=paid.day,
                    step=paid.step,
                    usage=paid.usage,
                    error=paid.error,
                )
        return recorder

    def _bind_prior(self, prior: Any) -> Transcript | None:
        if prior is None:
            return None
        if self.mode == "replay":
            raise ConfigError(f"arm {self.name!r}: prior= resumes a live run; a replay takes none")
        earlier = _recorder.load_prior(prior, purpose=f"resuming arm {self.name!r}")
        self._check_recorded_under_same_rules(earlier)
        return earlier

    def _stamp(self, recorder: Transcript) -> Transcript:
        meta = _recorder.adapter_meta(
            self.name, self.every, self.info, self.adapter_type, self.state
        )
        recorder.update_meta(**meta)
        return recorder

    def _check_recorded_under_same_rules(self, recorded: Transcript) -> None:
        refuse_other_schemas(recorded)
        recorded.checks.add("schemas")
        _recorder.refuse_other_instructions(recorded, self.info, self.name)
        _recorder.refuse_other_state(recorded, self.state, self.name)

    # --- one run -------------------------------------------------------------------------
    def begin(self, run: RunInfo) -> None:
        """Refuse a replay or resume of another run; stamp the recording with this one."""
        for recorded, resuming in ((self.replayed, False), (self.prior, True)):
            if recorded is not None:
                refuse_a_changed_preset(recorded, run.preset)
                _recorder.refuse_another_run(recorded, run, self.every, resuming=resuming)
        if self.recorder is not None:
            stamp_preset(self.recorder, run.preset)
            self.recorder.update_meta(run=_recorder.run_meta(run, self.every))

    def end(self) -> None:
        """Save a recording bound to a path, and drop its journal."""
        if self.recorder is not None and self.save_to is not None:
            self.recorder.save(self.save_to)
            self.recorder.close_journal()
            journal_path(self.save_to).unlink(missing_ok=True)

    # --- one exchange ----------------------------------------------------------------------
    def replay(self, request: DecisionRequest, key: str) -> tuple[Exchange | None, Any]:
        """The recorded exchange at ``key`` and its answer (a miss is refused by name)."""
        assert self.replayed is not None
        exchange = replayed_exchange(
            self.replayed, key, step=request.step, day=request.day, preset=request.preset
        )
        return exchange, exchange.response

    def paid_before(self, request: DecisionRequest, key: str) -> Exchange | None:
        """The prior run's answer to this input, unless it was a budget stop (unpaid)."""
        if self.prior is None:
            return None
        refuse_a_changed_preset(self.prior, request.preset)
        earlier = self.prior.get(key)
        return None if earlier is None or _recorder.is_budget_stop(earlier.error) else earlier

    def keep(
        self,
        request: DecisionRequest,
        key: str,
        sent: Any,
        answer: tuple[Any, dict[str, Any], dict[str, str] | None],
    ) -> None:
        """Record one exchange (its raw answer, usage and error) when recording."""
        if self.recorder is None:
            return
        raw, usage, error = answer
        stamp_preset(self.recorder, request.preset)
        self.recorder.add(
            key, sent, raw, day=request.day, step=request.step, usage=usage, error=error
        )


__all__ = ["TranscriptBinding"]
