"""Answers of the routes that return a statement or a schedule in the format asked for.

The JSON of such an answer is written as text with Spanish letters as they are
(``ensure_ascii=False``).
"""

from __future__ import annotations

import json
from typing import Any


def json_text(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)
