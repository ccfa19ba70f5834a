"""A check `verify` makes: one line, passed or failed, and each difference it found."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Check:
    """One check of the record: whether it passed, what it checked, and each difference found."""

    what: str
    differences: list[str] = field(default_factory=list)
    compared: int = 0  # cells or lines compared with what was published (none for the record's own checks)

    @property
    def ok(self) -> bool:
        return not self.differences

    def lines(self) -> list[str]:
        if self.ok:
            return [f"ok    {self.what}"]
        return [f"FAIL  {self.what}", *(f"        {d}" for d in self.differences)]
