"""`LiveStream-v0` (a whole stream) and `LiveStreamQA-v0` (one request) on top of `livesim.stream.sim.StreamSim`."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from pydantic import ValidationError
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

    OPTIONS: tuple[str, ...] = ("config", "harness")
    """The keys `reset(options=...)` accepts."""

    def _options(self, options: Any) -> dict[str, Any]:
        """`options` checked: a dict of known keys, `config` a StreamConfig (or its dict), `harness` a Harness.

        Every bad option raises `ValueError` naming it; the env then holds no episode (`step` says to reset).
        """
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        unknown = sorted(str(k) for k in options if k not in self.OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; expected some of {list(self.OPTIONS)}")
        out = dict(options)
        config = out.get("config", self.config)
        if isinstance(config, dict):
            try:
                config = StreamConfig.model_validate(config)
            except ValidationError as e:
                err = e.errors()[0]
                where = ".".join(str(x) for x in err["loc"]) or "(top level)"
                raise ValueError(f"options['config'].{where}: {err['msg']} ({e.error_count()} problem(s))") from None
        if not isinstance(config, StreamConfig):
            raise ValueError(f"options['config'] must be a StreamConfig or a dict, got {type(config).__name__}")
        out["config"] = config
        harness = out.get("harness", self.harness)
        if harness is not None and not isinstance(harness, Harness):
            raise ValueError(f"options['harness'] must be a Harness or None, got {type(harness).__name__}")
        out["harness"] = harness
        return out

    def _build(self, seed: int, options: dict[str, Any]) -> StreamSim:
        return StreamSim(seed, options["config"], options["harness"], augment=self.augment, faults=self.faults,
                         world=self.world)

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
    `reset(options=...)` accepts `config` and `harness` for one episode. A bad option (an unknown key, a value
    of the wrong type, an invalid config, a config whose stream has no comments) raises `ValueError` naming it,
    and the env holds no episode until a reset succeeds: `step` raises `RuntimeError` ("call reset() first").

    ## Version History
    - v1: the world (catalogue, strategy, viewers) is drawn by the same generators from bulk numpy draws
      (`livesim.world.v1.BlockRNG`), so a seed gives a different world than in v0; everything else, the
      comment stream's generators included, is as in v0. `world=1` at construction.
    - v0: initial version; its world is drawn by scalar numpy calls (kept, byte for byte).
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self.sim = None  # until this reset succeeds: a failed one leaves no episode to step
        sim = self._build(self._sim_seed(), self._options(options))
        request = sim.next_request()
        if request is None:
            raise ValueError("this stream config produced no comments; raise duration_s or comments_per_min")
        sim.begin(request)
        self.sim = sim
        return sim.observation(), sim.info(None)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.sim is None:
            raise RuntimeError("no episode to step: call reset() first (the last reset failed, or none was made)")
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

    OPTIONS = ("config", "harness", "split", "intent")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self.sim = None  # until this reset succeeds: a failed one leaves no episode to step
        options = self._options(options)
        split = options.get("split", self.split)
        if not isinstance(split, str) or split not in SPLITS:
            raise ValueError(f"split must be one of {sorted(SPLITS)}, got {split!r}")
        intent = options.get("intent")
        if intent is not None and not isinstance(intent, str):
            raise ValueError(f"options['intent'] must be an intent name or None, got {type(intent).__name__}")
        sim_seed = self._sim_seed() * 2 + SPLITS[split]
        sim = self._build(sim_seed, options)
        sim.begin(qa_request(sim, seeded_rng(sim_seed, 11), intent=intent))
        self.sim = sim
        return sim.observation(), sim.info(None)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.sim is None:
            raise RuntimeError("no episode to step: call reset() first (the last reset failed, or none was made)")
        if self.sim.done:
            return self.sim.observation(), 0.0, True, False, self.sim.info(None)
        result = self.sim.step(action)
        if result.dispatched:
            self.sim.done = True
        if self.render_mode == "human":
            self.render()
        return self.sim.observation(), float(result.reward), result.dispatched, False, result.info
