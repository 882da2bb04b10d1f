#!/bin/sh
# The ACL runtime (lib/acl) against the real module: the cmocka program
# itest_acl, and device memory that processes never free going back to
# the devices when they exit or are killed.
. "$(dirname "$0")/tap.sh"

CMOCKA_MESSAGE_OUTPUT=TAP itest_acl || tap_failed=$((tap_failed + 1))

used() { acl_hold stat | sed -n 's/^used //p'; }

expect "no device memory in use before" 0 "$(used)"

acl_hold exit 16
expect "acl_hold exit: allocated and exited without freeing" 0 "$?"
expect "device memory released on exit" 0 "$(used)"

acl_hold wait 16 >/tmp/acl-hold.txt &
pid=$!
if wait_for /tmp/acl-hold.txt '^ready' 600; then
	check "held device memory is counted" test "$(used)" -ge $((32 << 20))
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	expect "device memory released on kill -9" 0 "$(used)"
else
	not_ok "acl_hold wait: never ready"
	kill -9 "$pid" 2>/dev/null
fi
tap_done
