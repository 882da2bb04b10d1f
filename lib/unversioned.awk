# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A version script with named nodes (lib/*/exports.map, concatenated) made
# into one anonymous node with the same global symbols: the link script of
# the libraries with CANN's names (lib/Makefile says why they carry no
# symbol versions).  Comments must be gone already (sed, in lib/Makefile).
# extern "C++" blocks are kept whole; "local:" parts go, one "local: *;"
# ends the node.
BEGIN { print "{"; print "\tglobal:" }
/^[[:space:]]*global:/ { in_global = 1; next }
!in_global { next }
/^[[:space:]]*local:/ { in_global = 0; next }
/extern[[:space:]]+"C\+\+"[[:space:]]*\{/ { depth++; print; next }
/^[[:space:]]*\};[[:space:]]*$/ && depth > 0 { depth--; print; next }
/^[[:space:]]*\}/ { in_global = 0; next }
NF { print }
END { print "\tlocal:"; print "\t\t*;"; print "};" }
