# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# t25-coverage.sh, case bigtcp (sourced by tests/t25-coverage.sh, with its
# helpers):
#   bigtcp  e1000e path (65536/65535), host_gso_max_size=70000 (a BIG TCP
#           path's value): the feature is negotiated and the driver
#           applies min(70000, its own 65536) without a warning.  The
#           guest admin's gso_max_size / gso_ipv4_max_size above the
#           driver's tso_max_size are refused ("too big"), the values
#           stay; a lower one (60000) is accepted and the stream's frames
#           stay under it, large ones still (above 32 MSS).
# The guest's busybox has no gso_max_size: the bigtcp guest gets
# iproute2's ip (the host's, >= 6.3 for gso_ipv4_max_size) in an extra
# archive at /opt/iproute2/ip.
# iproute2's ip for the guest, with its libraries (the host's: setup-deps
# installs >= 6.3), cached by content like the base initramfs.
iproute2_initrd() {
	local ip root key out lib
	ip=$(command -v ip)
	mapfile -t libs < <(prog_libs "$ip")
	key=$(files_hash "$ip" "${libs[@]}")
	out=$GSO_CACHE/initramfs/iproute2-$key.cpio.gz
	if [ ! -f "$out" ]; then
		root=$(mktemp -d)
		mkdir -p "$root/opt/iproute2"
		cp "$ip" "$root/opt/iproute2/ip"
		for lib in "${libs[@]}"; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
		write_cpio "$root" "$out"
		rm -rf "$root"
	fi
	echo "$out"
}



# --- bigtcp ------------------------------------------------------------------
VM=bigtcp BYTES=$((8 << 20))
topo_tier1 e1000e
captures $VM 5201
receiver $VM 5201 $BYTES
cat > "$TEST_LOG_DIR/$VM.guest.sh" <<GUEST
. /etc/gso-guest.sh
IP=/opt/iproute2/ip
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
# Bit 71 of the negotiated features: VIRTIO_NET_F_GSO_LIMITS.
echo "FEATURE71: \$(cut -c72 /sys/class/net/eth0/device/features)"
echo "LINK-BOOT: \$(gso-linkinfo eth0)"
# BIG TCP: the admin asks for more than the driver's tso_max_size.
for attr in gso_max_size gso_ipv4_max_size; do
	out=\$(\$IP link set dev eth0 \$attr 70000 2>&1)
	echo "ADMIN-\$attr-70000: rc=\$? \$out"
done
echo "LINK-REFUSED: \$(gso-linkinfo eth0)"
out=\$(\$IP link set dev eth0 gso_max_size 60000 gso_ipv4_max_size 60000 2>&1)
echo "ADMIN-60000: rc=\$? \$out"
echo "LINK-60000: \$(gso-linkinfo eth0)"
echo "SEND-5201: \$(gso-stream send $PEER_IP4 5201 $BYTES --timeout 200 2>&1 | tail -n 1)"
GUEST
mapfile -t nic < <(topo_guest_nic_args "host_gso_max_size=70000")
VM_EXTRA_INITRD=$(iproute2_initrd) vm_start $VM "$HOST_NS" "$TEST_LOG_DIR/$VM.guest.sh" "${nic[@]}"
finish $VM
boot=$(gval $VM LINK-BOOT)
check_eq "VIRTIO_NET_F_GSO_LIMITS negotiated (features bit 71)" "$(gval $VM FEATURE71)" 1
check_eq "tso_max_size" "$(link_field "$boot" tso_max_size)" 65536
check_eq "tso_max_segs" "$(link_field "$boot" tso_max_segs)" 65535
check_eq "gso_max_size" "$(link_field "$boot" gso_max_size)" 65536
check_eq "driver warnings" "$(warnings $VM)" 0
log_test "coverage bigtcp: device 70000 applied as min(70000, 65536) = 65536, no warning"

for attr in gso_max_size gso_ipv4_max_size; do
	case "$(gval $VM "ADMIN-$attr-70000")" in
	rc=0*) check_err 1 "the guest accepted $attr 70000 above tso_max_size 65536" ;;
	*"too big"*) ;;
	*) check_err 1 "$attr 70000: not the 'too big' refusal: $(gval $VM "ADMIN-$attr-70000")" ;;
	esac
done
refused=$(gval $VM LINK-REFUSED)
check_eq "gso_max_size after the refusal" "$(link_field "$refused" gso_max_size)" 65536
check_eq "gso_ipv4_max_size after the refusal" "$(link_field "$refused" gso_ipv4_max_size)" 65536
log_test "coverage bigtcp: admin gso_max_size/gso_ipv4_max_size 70000 refused (driver max 65536)"

lowered=$(gval $VM LINK-60000)
case "$(gval $VM ADMIN-60000)" in rc=0*) ;; *) check_err 1 "60000 refused: $(gval $VM ADMIN-60000)" ;; esac
check_eq "gso_max_size set by the admin" "$(link_field "$lowered" gso_max_size)" 60000
check_eq "gso_ipv4_max_size set by the admin" "$(link_field "$lowered" gso_ipv4_max_size)" 60000
stream_ok $VM 5201 $BYTES || check_err 1 "the stream did not arrive intact"
port_hist $VM 5201
hist_crossed $VM-p5201 $BYTES || check_err 1 "the stream is not whole in the captures"
check_eq "tap bytes in frames of 60000 bytes or more" "$(hist_oversize_bytes $VM-p5201 60000)" 0
large_frames $VM-p5201
check_eq "bytes segmented in software" "$(hist_q $VM-p5201 '.segmented_in_software.bytes')" 0
log_test "coverage bigtcp: admin 60000 accepted; stream intact, frames < 60000 (max $(hist_q $VM-p5201 '.files[0].max_payload'))"
defer_cleanup
