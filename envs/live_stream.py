"""`LiveStream-v0` (a whole stream) and `LiveStreamQA-v0` (one request) on top of `livesim.stream.sim.StreamSim`."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from rich.console import Console

from livesim.envs.spaces import AssistantAction, Conversation
from livesim.harness.core import Harness
from livesim.render.dashboard import frame_text, render, state_from_sim
from livesim.stream.sim import FaultInjector, HarnessTransform, StreamConfig, StreamSim, qa_request
from livesim.world.draws import seeded_rng

SPLITS = {"train": 0, "test": 1}
WORLDS = (0, 1)  # the world generator: 0 for the -v0 envs, 1 for the -v1 envs (see Version History)


class _BaseEnv(gym.Env[dict[str, Any], Any]):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, config: StreamConfig | dict[str, Any] | None = None, harness: Harness | None = None,
                 render_mode: str | None = None, world: int = 0) -> None:
        if world not in WORLDS:
            raise ValueError(f"world must be one of {WORLDS} (0: the v0 world, 1: the v1 world), got {world!r}")
        self.world = world
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = config if isinstance(config, StreamConfig) else StreamConfig.model_validate(config or {})
        self.harness = harness
        self.render_mode = render_mode
        self.observation_space = Conversation()
        self.action_space = AssistantAction()
        # Set by HSA and fault wrappers (livesim.envs.hsa); applied when a stream is built.
        self.augment: HarnessTransform | None = None
        self.faults: FaultInjector | None = None
        self.sim: StreamSim | None = None

    def _build(self, seed: int, options: dict[str, Any]) -> StreamSim:
        config = options.get("config", self.config)
        if isinstance(config, dict):
            config = StreamConfig.model_validate(config)
        return StreamSim(seed, config, options.get("harness", self.harness), augment=self.augment,
                         faults=self.faults, world=self.world)

    def _sim_seed(self) -> int:
        return int(self.np_random.integers(2**31 - 1))

    def render(self) -> str | None:
        if self.sim is None or self.render_mode is None:
            return None

        state = state_from_sim(self.sim, self.spec.id if self.spec else type(self).__name__)
        if self.render_mode == "human":
            Console().print(render(state))
            return None
        return frame_text(state)


class LiveStreamEnv(_BaseEnv):
    """A live-stream shop in which the agent is the AI host answering viewers' comments.

    ## Description
    One episode is one stream: viewers' comments arrive on a simulated clock and are merged into requests;
    the host answers each with tool calls and a reply while a marketing strategy changes the room.

    ## Action Space
    `AssistantAction`: any string (tool calls inside it as `<tool_call>{json}</tool_call>`, JSON, Python-call
    or other common formats) or an OpenAI assistant message dict with `tool_calls`. Anything that cannot be
    parsed is graded, never raised. A message without tool calls is the reply to the viewers.

    ## Observation Space
    `Conversation`: `{"messages": [...], "tools": [...]}`: the system prompt rendered from the presented
    harness, the merged comments, tool results and hook messages, in OpenAI chat format, plus the presented
    tool schemas. It grows within a request; a new request starts a new conversation.

    ## Rewards
    0 until a reply is dispatched; then the weighted sum of accuracy, effectiveness, tool rationality,
    skill selection, hook compliance and latency (`info["reward_terms"]`, which sums to the reward).
    A reply that meets none of the viewer's needs scores 0.

    ## Starting State
    A catalogue, strategy and viewer population drawn from the seed (or given by `config`), and the first
    request of the stream.

    ## Episode End
    Terminated when the stream's duration has passed and no comment is pending. Truncation is the
    `TimeLimit` wrapper's (`max_episode_steps` at registration).

    ## Arguments
    `config` (`StreamConfig` or dict), `harness` (`Harness`, default: the canonical one), `render_mode`
    (`"ansi"` or `"human"`), `world` (0 or 1: the world generator; set by the env id's version).
    `reset(options=...)` accepts `config` and `harness` for one episode.

    ## Version History
    - v1: the world (catalogue, strategy, viewers) is drawn by the same generators from bulk numpy draws
      (`livesim.world.v1.BlockRNG`), so a seed gives a different world than in v0; everything else, the
      comment stream's generators included, is as in v0. `world=1` at construction.
    - v0: initial version; its world is drawn by scalar numpy calls (kept, byte for byte).
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self.sim = self._build(self._sim_seed(), options or {})
        request = self.sim.next_request()
        if request is None:
            raise RuntimeError("this stream config produced no comments; raise duration_s or comments_per_min")
        self.sim.begin(request)
        return self.sim.observation(), self.sim.info(None)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.sim is None:
            raise RuntimeError("call reset() before step()")
        sim = self.sim
        if sim.done:
            return sim.observation(), 0.0, True, False, sim.info(None)
        result = sim.step(action)
        terminated = False
        if result.dispatched:
            nxt = sim.next_request()
            if nxt is None:
                sim.done = terminated = True
                result.info["metrics"] = sim.metrics.summary(sim.room.viewers_online)
            else:
                sim.begin(nxt)
        if self.render_mode == "human":
            self.render()
        return sim.observation(), float(result.reward), terminated, False, result.info


class LiveStreamQAEnv(_BaseEnv):
    """One request of a live stream: the unit of evaluation sets and of RL training.

    ## Description
    A request (one to three merged comments) at a random moment of a stream drawn from the seed, with its
    room and product context. The episode ends when the reply is dispatched.

    ## Action Space
    As `LiveStream-v0`.

    ## Observation Space
    As `LiveStream-v0`.

    ## Rewards
    The graded reply, as `LiveStream-v0`; 0 on tool-calling steps.

    ## Starting State
    Intents are drawn uniformly (balanced evaluation sets) unless `options["intent"]` names one.
    `options["split"]` (`"train"` or `"test"`) draws from disjoint seed sets.

    ## Episode End
    Terminated when a reply (or the fallback after exhausted hook retries or the turn cap) is dispatched.

    ## Arguments
    As `LiveStream-v0`, plus `split` (default `"train"`).

    ## Version History
    - v1: the world (catalogue, strategy, viewers) is drawn by the same generators from bulk numpy draws
      (`livesim.world.v1.BlockRNG`), so a seed gives a different world than in v0; everything else, the
      comment stream's generators included, is as in v0. `world=1` at construction.
    - v0: initial version; its world is drawn by scalar numpy calls (kept, byte for byte).
    """

    def __init__(self, config: StreamConfig | dict[str, Any] | None = None, harness: Harness | None = None,
                 render_mode: str | None = None, split: str = "train", world: int = 0) -> None:
        super().__init__(config, harness, render_mode, world)
        if split not in SPLITS:
            raise ValueError(f"split must be one of {sorted(SPLITS)}, got {split!r}")
        self.split = split

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        split = options.get("split", self.split)
        if split not in SPLITS:
            raise ValueError(f"split must be one of {sorted(SPLITS)}, got {split!r}")
        sim_seed = self._sim_seed() * 2 + SPLITS[split]
        self.sim = self._build(sim_seed, options)
        intent = options.get("intent")
        self.sim.begin(qa_request(self.sim, seeded_rng(sim_seed, 11), intent=intent))
        return self.sim.observation(), self.sim.info(None)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.sim is None:
            raise RuntimeError("call reset() before step()")
        if self.sim.done:
            return self.sim.observation(), 0.0, True, False, self.sim.info(None)
        result = self.sim.step(action)
        if result.dispatched:
            self.sim.done = True
        if self.render_mode == "human":
            self.render()
        return self.sim.observation(), float(result.reward), result.dispatched, False, result.info
