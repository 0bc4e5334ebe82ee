# Corpus hook: a PostToolUse checker in the documented pattern (decision "block" with a
# reason the model sees; additionalContext otherwise). Written for Warden's fidelity tests.
import json
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if path.endswith(".ts") and "any" in data.get("tool_input", {}).get("content", ""):
    print(json.dumps({"decision": "block", "reason": f"{path}: avoid the any type"}))
elif path.endswith(".ts"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": f"{path} type-checks"}}))
sys.exit(0)
