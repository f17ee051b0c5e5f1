"""Why a case file could not be loaded: one type for the loader, the reports and pytest."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class LoadProblem(BaseModel):
    """One case file that could not be loaded: its file, and its line and field when known.

    A value, not an exception: a bad file never stops the others from loading, and the
    JSON report lists these as ``load_errors`` field for field.
    """

    model_config = ConfigDict(frozen=True)

    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )
