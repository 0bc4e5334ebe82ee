#!/usr/bin/env bash
# Corpus hook: a Stop hook that keeps the agent going once (decision "block"), and lets it
# stop when stop_hook_active is set, as the Claude Code hooks guide recommends.
input=$(cat)
if [ "$(printf '%s' "$input" | jq -r '.stop_hook_active')" = "true" ]; then
  exit 0
fi
printf '%s\n' '{"decision": "block", "reason": "The tests have not been run yet; run them before stopping."}'
