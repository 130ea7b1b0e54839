"""An agent of your own: a class with `act(observation) -> action` (and, if it keeps state, `reset()`).

It reads only what any agent sees: the presented skill index and tool schemas (so it keeps working when HSA
renames them). Price questions about a link: load the skill whose description mentions prices, call the tool
whose description mentions prices, then state the live price from its result. Anything else: greet.

    python examples/custom_agent.py --episodes 20
    livesim eval --agent examples/custom_agent.py:PriceAgent --episodes 20
    livesim compare --agent oracle --agent examples/custom_agent.py:PriceAgent --scenario flash-sale-rush --seeds 0-2
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any


def _skill(system: str, word: str) -> str | None:
    """The name of the first skill in the skill index whose description holds `word`."""
    index = system[max(0, system.lower().find("skill index")):]
    for m in re.finditer(r"^\W*([\w-]+)\W*: (.+)$", index, flags=re.M):
        if word in m.group(2).lower() and "strategy" not in m.group(2):
            return m.group(1)
    return None


def _tool(tools: list[dict[str, Any]], word: str) -> dict[str, Any] | None:
    return next((t["function"] for t in tools if word in t["function"]["description"].lower()), None)


def _call(name: str, arguments: dict[str, Any]) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


class PriceAgent:
    """Answers "how much is link N" from the price tool; greets otherwise."""

    name = "price-agent"

    def act(self, observation: dict[str, Any]) -> str:
        messages, tools = observation["messages"], observation["tools"]
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        comments = next((m["content"] for m in messages if m["role"] == "user"), "")
        results = [m["content"] for m in messages[2:] if m["role"] == "tool"]
        link = re.search(r"(?:link\s*|#)(\d+)", comments, flags=re.I)
        asks_price = link and re.search(r"price|how much|cost", comments, flags=re.I)
        load = _tool(tools, "skill")
        if not results:  # first turn: load a reply skill (and look the price up)
            skill = _skill(system, "price" if asks_price else "greet")
            calls = []
            if load and skill:
                calls.append(_call(load["name"], {next(iter(load["parameters"]["properties"])): skill}))
            price = _tool(tools, "live price") or _tool(tools, "price")
            if asks_price and price:
                param = next(iter(price["parameters"]["properties"]))
                calls.append(_call(price["name"], {param: int(link.group(1))}))
            if calls:
                return "\n".join(calls)
        for text in results:
            try:
                data = json.loads(text)
            except ValueError:
                continue
            if isinstance(data, dict) and "current_price" in data:
                which = data.get("link", link.group(1) if link else "")
                return f"Link {which} is {data['current_price']:g} yuan right now."
        return "Hi, welcome to the stream! Have a look at the pinned link."


def main(argv: list[str] | None = None) -> float:
    import gymnasium as gym

    import livesim  # noqa: F401  (registers the envs)
    from livesim.agents import make_agent

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=20)
    args = p.parse_args(argv)
    agent = make_agent(f"{__file__}:PriceAgent")  # what `livesim eval --agent FILE:Class` builds: reset/act_batch added
    env = gym.make("LiveStreamQA-v0")
    rewards = []
    for seed in range(args.episodes):
        obs, _ = env.reset(seed=seed, options={"intent": "price"} if seed % 2 else None)
        agent.reset()
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs))
            done = terminated or truncated
        rewards.append(reward)
    mean = sum(rewards) / len(rewards)
    print(f"PriceAgent: mean reward {mean:.3f} over {len(rewards)} requests (half of them price questions)")
    return mean


if __name__ == "__main__":
    main()
