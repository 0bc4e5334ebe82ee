#!/bin/sh
# A command hook whose behaviour the soak switches at run time through the file named by
# its first argument: ok (allow), hang (sleep past any timeout), crash (exit 1), garbage
# (answer something that is not JSON), signal (killed by SIGKILL).
mode=$(cat "$1" 2>/dev/null || echo ok)
cat >/dev/null
case "$mode" in
  hang) exec sleep 30 ;;
  crash) echo "soak: crashing on purpose" >&2; exit 1 ;;
  garbage) echo "{this is not json"; exit 0 ;;
  signal) kill -KILL $$ ;;
  *) echo '{}' ;;
esac
