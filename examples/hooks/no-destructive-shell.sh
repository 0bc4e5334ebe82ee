#!/bin/sh
# A command hook in shell: blocks destructive shell commands.
# Reads the Claude Code style event on stdin; exit 2 denies with stderr as the reason.
input=$(cat)
case "$input" in
  *'rm -rf'*|*'mkfs'*|*'dd if='*|*':(){'*)
    echo "destructive shell command refused: use a safer, scoped command" >&2
    exit 2
    ;;
esac
exit 0
