#!/bin/sh
# Corpus hook: refuses writes outside the project folder, using CLAUDE_PROJECT_DIR as
# Claude Code sets it for hook processes.
path=$(jq -r '.tool_input.file_path')
case "$path" in
  "$CLAUDE_PROJECT_DIR"/*) exit 0 ;;
  *) echo "writes outside $CLAUDE_PROJECT_DIR are refused: $path" >&2; exit 2 ;;
esac
