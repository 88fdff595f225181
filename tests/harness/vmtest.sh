# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# What a VM test sources: the test helpers, the VM launcher, the tier-1
# topology, the bulk-run helpers, the QMP client and the host daemon.
# Source it from a test in tests/.
# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/topo.sh
. "$GSO_TOP/tests/harness/topo.sh"
# shellcheck source=tests/harness/bulk.sh
. "$GSO_TOP/tests/harness/bulk.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"
