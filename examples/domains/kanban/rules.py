
from pydantic import BaseModel, Field

from mcp_world.rules import Parsed, Rules


class Board(BaseModel):
    columns: dict[str, list[str]] = Field(default_factory=dict)


class KanbanRules(Rules):
    """Adding is answered from the state (the next id), and so is listing a column it knows."""

    state_model = Board

    def answer(self, state, call):
        board = Board.model_validate(state)
        if call.tool == "board_add":
            n = sum(len(c) for c in board.columns.values()) + 1
            return Parsed(f"card-{n}\n", {"id": f"card-{n}"})
        cards = board.columns.get(call.arguments["column"])
        return None if cards is None else Parsed("".join(c + "\n" for c in cards), {"cards": cards})

    def apply(self, state, call, text, structured):
        board = Board.model_validate(state)
        if call.tool == "board_add":
            board.columns.setdefault(call.arguments["column"], []).append(call.arguments["title"])
        elif call.tool == "board_list" and call.arguments["column"] not in board.columns:
            board.columns[call.arguments["column"]] = [ln for ln in text.splitlines() if ln.strip()]
        return board.model_dump()

    def summary(self, state):
        return "; ".join(f"{k}: {', '.join(v)}" for k, v in Board.model_validate(state).columns.items())


rules = KanbanRules()
