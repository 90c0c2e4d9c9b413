"""The tool sandbox: what the model's commands and file tools may touch without a person.

Two layers, one meaning each: the sandbox (this package) decides what may happen at all;
the approval layer (agent/tools/danger.py) asks a person about dangerous actions inside
it. See docs/SANDBOX.md for what enforces what.
"""

from agent.sandbox.backend import Backend, Sandbox, backend, sandbox_for
from agent.sandbox.policy import Policy, SandboxSettings, build_policy

__all__ = ["Backend", "Policy", "Sandbox", "SandboxSettings", "backend", "build_policy", "sandbox_for"]
