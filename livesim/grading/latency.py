"""The latency model: what a reply costs in simulated seconds.

By default a deterministic model of prefill and decode tokens per turn plus each tool's service time; an
agent may instead report its measured wall-clock time. A reply past the budget loses the viewer.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


def count_tokens(text: str) -> int:
    """A tokenizer-free token estimate (about four characters a token), deterministic across machines."""
    return len(text) // 4 + 1 if text else 0


class LatencyModel(BaseModel):
    """Cost of one assistant turn: overhead + new prompt tokens / prefill rate + output tokens / decode rate."""

    model_config = ConfigDict(extra="forbid")
    mode: str = Field("model", pattern="^(model|measured)$",
                      description="'model': this deterministic model; 'measured': the agent's reported seconds.")
    turn_overhead_s: float = Field(0.25, ge=0, description="Scheduling and network time per turn.")
    prefill_tokens_per_s: float = Field(4000.0, gt=0, description="Prompt tokens processed per second.")
    decode_tokens_per_s: float = Field(50.0, gt=0, description="Output tokens generated per second.")
    tool_s: dict[str, float] = Field(default_factory=lambda: {
        "search_products": 0.3, "get_product": 0.12, "get_price": 0.1, "check_stock": 0.1, "recommend_size": 0.15,
        "get_shipping_policy": 0.12, "get_after_sales_policy": 0.12, "list_promotions": 0.1, "issue_coupon": 0.25,
        "pin_product": 0.2, "set_price": 0.2, "escalate_to_human": 0.3, "compare_products": 0.2,
        "load_skill": 0.03}, description="Service time per canonical tool; tools in one turn run in parallel.")
    target_s: float = Field(5.0, gt=0, description="Latency at or under which the latency term is full.")
    budget_s: float = Field(15.0, gt=0, description="Latency past which the viewer is lost.")

    def turn(self, new_prompt_tokens: int, output_tokens: int, tool_keys: list[str]) -> float:
        tools = max((self.tool_s.get(k, 0.2) for k in tool_keys), default=0.0)
        return (self.turn_overhead_s + new_prompt_tokens / self.prefill_tokens_per_s
                + output_tokens / self.decode_tokens_per_s + tools)

    def score(self, latency_s: float) -> float:
        """1 up to the target, falling linearly to 0 at the budget."""
        if latency_s <= self.target_s:
            return 1.0
        if latency_s >= self.budget_s:
            return 0.0
        return 1.0 - (latency_s - self.target_s) / (self.budget_s - self.target_s)
