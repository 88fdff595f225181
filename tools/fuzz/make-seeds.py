#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the hand-made seeds of the fuzz corpora (corpus/<harness>/seed-*).

Seeds are valid inputs of each parser, so that a short run starts from
inputs that reach deep: a netlink link dump, link tables of the unit
tests' topologies, frames of every link type, small captures, softnet
lines, QEMU command lines.  Crash regressions are added next to them as
crash-<sha1> by hand (tests/tools-fuzz.sh runs every file).  Run again
after changing it; the output is deterministic.
"""
import ast
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


# --- rtnetlink -------------------------------------------------------------
def nla(atype, payload):
    n = struct.pack("=HH", 4 + len(payload), atype) + payload
    return n + b"\0" * (-len(n) % 4)


def u32(atype, v):
    return nla(atype, struct.pack("=I", v))


def newlink(index, name, kind=None, data=b"", master=0, lower=0, limits=(65536, 65535)):
    attrs = nla(3, name.encode() + b"\0") + u32(4, 1500)           # IFNAME, MTU
    attrs += u32(40, limits[0]) + u32(41, limits[1])               # GSO_MAX_SIZE/SEGS
    attrs += u32(59, 524280) + u32(60, 65535) + u32(63, limits[0])  # TSO_*, GSO_IPV4
    if master:
        attrs += u32(10, master)
    if lower:
        attrs += u32(5, lower)
    if kind:
        info = nla(1, kind.encode())
        if data:
            info += nla(2, data)
        attrs += nla(18, info)                                     # IFLA_LINKINFO
    ifi = struct.pack("=BxHiII", 0, 1, index, 0x1043, 0)
    body = ifi + attrs
    return struct.pack("=IHHII", 16 + len(body), 16, 2, 0, 0) + body  # RTM_NEWLINK, NLM_F_MULTI


tun = nla(8, b"\1") + u32(9, 2) + u32(10, 0)   # MULTI_QUEUE, NUM_QUEUES, NUM_DISABLED
done = struct.pack("=IHHII", 20, 3, 2, 0, 0) + struct.pack("=i", 0)
write("fuzz-link-parse", "dump", newlink(1, "br0", "bridge") +
      newlink(2, "tap0", "tun", tun, master=1) +
      newlink(3, "nic0", master=1, limits=(64000, 64)) +
      newlink(4, "veth0", "veth", lower=5) + done)
write("fuzz-link-parse", "short-ifinfomsg", struct.pack("=IHHII", 20, 16, 0, 0, 0) + b"\1\0\0\0")

# --- link tables: 12 bytes per link (fuzz-path-limits.c) --------------------
KINDS = ["", "tun", "bridge", "veth", "vlan", "macvlan", "macvtap", "ipvlan", "ipvtap",
         "bond", "team", "openvswitch", "vrf"]


def link(ifindex, master, lower, kind, size=5, segs=5, tap=True):
    return bytes([ifindex - 1, master, lower, KINDS.index(kind), 1 if tap else 0, 0x3f,
                  size, size, 6, segs, segs, 5])


write("fuzz-path-limits", "seed000", link(1, 0, 0, "bridge") + link(2, 1, 0, "tun") +
      link(3, 1, 0, "", 3, 200))
write("fuzz-path-limits", "fwbr", link(1, 0, 0, "bridge") + link(2, 1, 0, "tun") +
      link(3, 1, 4, "veth") + link(4, 5, 3, "veth") + link(5, 0, 0, "bridge") +
      link(6, 5, 0, "", 3, 200))
write("fuzz-path-limits", "vlan-bond", link(1, 0, 0, "bridge") + link(2, 1, 0, "tun") +
      link(3, 0, 0, "bond") + link(4, 1, 3, "vlan") + link(5, 3, 0, "", 3, 64))
write("fuzz-path-limits", "macvtap", link(1, 0, 0, "", 3, 64) + link(2, 0, 1, "macvtap"))


# --- frames: link type index, wire length, bytes (fuzz-frame-parse.c) --------
def tcp(payload_len=1448):
    return struct.pack("!HHIIBBHHH", 1, 2, 0, 0, 0x80, 0x10, 0, 0, 0) + b"\1\1\x08\x0a" + b"\0" * 8


def ipv4(l4, total):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, 6, 0, b"\xc0\0\2\1",
                       b"\xc0\0\2\2") + l4


def ipv6(l4, plen, nxt=6, ext=b""):
    return struct.pack("!IHBB16s16s", 6 << 28, plen, nxt, 64, b"\x20\x01\x0d\xb8" + b"\0" * 12,
                       b"\x20\x01\x0d\xb8" + b"\0" * 11 + b"\2") + ext + l4


ETH4 = b"\2" * 12 + b"\x08\x00"
ETH6 = b"\2" * 12 + b"\x86\xdd"


def frame(lt, wire, data):
    return bytes([lt]) + struct.pack("!I", wire) + data


write("fuzz-frame-parse", "ipv4", frame(0, 0, ETH4 + ipv4(tcp(), 20 + 32 + 1448)))
write("fuzz-frame-parse", "ipv4-bigtcp", frame(0, 14 + 52 + 185000, ETH4 + ipv4(tcp(), 0)))
write("fuzz-frame-parse", "ipv6", frame(0, 0, ETH6 + ipv6(tcp(), 32 + 1428)))
write("fuzz-frame-parse", "ipv6-jumbo", frame(0, 0, ETH6 + ipv6(
    tcp(), 0, 0, b"\x06\x00\xc2\x04" + struct.pack("!I", 8 + 32 + 200000)) ))
write("fuzz-frame-parse", "vlan", frame(0, 0, b"\2" * 12 + b"\x81\x00\x00\x0a\x08\x00" +
                                        ipv4(tcp(), 1500)))
write("fuzz-frame-parse", "raw", frame(1, 0, ipv4(tcp(), 1500)))
write("fuzz-frame-parse", "sll", frame(3, 0, b"\0" * 14 + b"\x08\x00" + ipv4(tcp(), 1500)))
write("fuzz-frame-parse", "sll2", frame(4, 0, b"\x86\xdd" + b"\0" * 18 + ipv6(tcp(), 1460)))


# --- captures (fuzz-hist.c: byte 0 the MSS choice, then a pcap file) ---------
def pcap(frames):
    out = struct.pack("=IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)
    for i, (data, wire) in enumerate(frames):
        out += struct.pack("=IIII", i, 0, len(data), wire) + data
    return out


tap = [(ETH4 + ipv4(tcp(), 52 + 65160), 14 + 52 + 65160)] * 3
nic = [(ETH4 + ipv4(tcp(), 52 + 1448), 14 + 52 + 1448)] * 5
big = [(ETH4 + ipv4(tcp(), 0), 14 + 52 + 185000), (ETH6 + ipv6(tcp(), 0), 14 + 72 + 185000)]
write("fuzz-hist", "guess", b"\0" + pcap(tap + nic))
write("fuzz-hist", "given", b"\x80" + pcap(nic))
write("fuzz-hist", "bigtcp", b"\0" + pcap(big + nic))

# --- text parsers -------------------------------------------------------------
write("fuzz-softnet", "6x", "00015f90 00003070 00000032 00000000 00000000 00000000 00000000 "
      "00000000 00000000 00000000 00000000 00000000 00000000\n"
      "00000bb8 0000000a 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
      "00000000 00000000 00000000 00000002\n")
write("fuzz-softnet", "old", "00000010 00000001 00000000\n00000020 00000002 00000000\n")
for name, text in [("cpulist", "0-3,5,7-8"), ("mask", "00000000,00000003"),
                   ("number", "18446744073709551615"), ("long", "0-9223372036854775807")]:
    write("fuzz-sysfs-text", name, text)

write("fuzz-vmm-cmdline", "proxmox", "\0".join([
    "/usr/bin/kvm", "-id", "100", "-name", "vm100,debug-threads=on", "-smp", "4,sockets=1,cores=4",
    "-netdev", "type=tap,id=net0,ifname=tap100i0,script=/var/lib/qemu-server/pve-bridge",
    "-device", "virtio-net-pci,mac=BC:24:11:00:00:01,netdev=net0,bus=pci.0,host_gso_max_size=64000",
    "-netdev", "tap,id=n1,,x,ifname=tap0", "--device", "virtio-net-pci,netdev=n1,,x,host_gso_auto=on",
]) + "\0")
write("fuzz-vmm-cmdline", "libvirt", "\0".join([
    "/usr/bin/qemu-system-x86_64", "-name", "guest=vm1,debug-threads=on",
    "-chardev", "socket,id=charmonitor,path=/run/qemu.sock,server=on,wait=off",
    "-mon", "chardev=charmonitor,id=monitor,mode=control",
    "-netdev", '{"type":"tap","fd":"24","vhost":true,"vhostfd":"26","id":"hostnet0"}',
    "-device", '{"driver":"virtio-net-pci","netdev":"hostnet0","id":"net0","host_gso_max_size":64000}',
]) + "\0")
# host_gso_limits of a tap's device (lib/qemu_net_prop.c): the spellings of
# test-doctor-machine's command lines, which tests/tools-daemon-qemu.sh
# checks against QEMU's own qom-get.
TAP0 = ["-netdev", "tap,id=n0,ifname=tap0,script=no"]
PCI0 = ["-device", "virtio-net-pci,netdev=n0,id=net0"]
write("fuzz-qemu-net-prop", "proxmox", "\0".join([
    "/usr/bin/kvm", "-id", "100", "-machine", "type=pc-q35-10.2+pve1",
    "-netdev", "type=tap,id=net0,ifname=tap100i0,script=/var/lib/qemu-server/pve-bridge",
    "-device", "virtio-net-pci,mac=BC:24:11:00:00:01,netdev=net0,bus=pci.0,addr=0x12,id=net0,"
    "host_gso_limits=on",
    "-global", "virtio-net-pci.host_gso_limits=off",
]) + "\0")
write("fuzz-qemu-net-prop", "libvirt", "\0".join([
    "/usr/bin/qemu-system-x86_64", "-name", "guest=vm1,debug-threads=on",
    "-netdev", '{"type":"tap","fd":"24","vhost":true,"vhostfd":"26","id":"hostnet0"}',
    "-device", '{"driver":"virtio-net-pci","netdev":"hostnet0","id":"net0",'
    '"host_gso_limits":false}',
    "-set", "device.net0.host_gso_limits=y",
]) + "\0")
write("fuzz-qemu-net-prop", "device", "\0".join(TAP0 + [
    "-device", "virtio-net-pci,netdev=n0,id=net0,host_gso_limits=on,host_gso_limits=n,"
    "romfile=a,,host_gso_limits=off",
    "-set", "device.net0.host_gso_limits=off", "-set", "device.net1.host_gso_limits=on",
]) + "\0")
write("fuzz-qemu-net-prop", "global", "\0".join(TAP0 + PCI0 + [
    "-global", "virtio-net-pci.host_gso_limits=on",
    "--global", "virtio-net-device.host_gso_limits=no",
    "-global", "driver=virtio-net-pci,property=host_gso_limits,value=off",
    "-global", "value=false,property=host_gso_limits,driver=virtio-net-pci-base",
    "-global", "driver=virtio-net-pci,property=mq,value=off",
    "-global", "virtio-net-pci-non-transitional.host_gso_limits=off",
    "-global", "virtio-net.host_gso_limits=maybe",
]) + "\0")
write("fuzz-qemu-net-prop", "alias", "\0".join(TAP0 + [
    "-device", "virtio-net,netdev=n0,id=net0",
    "-netdev", "tap,id=n1,ifname=tap1", "-device", "virtio-net-device,netdev=n1",
    "-global", "virtio-net-pci.host_gso_limits=off",
]) + "\0")
# Items longer than a value is read (QEMU_OPT_MAX): skipped, never copied whole.
write("fuzz-qemu-net-prop", "long", "\0".join(TAP0 + [
    "-device", "virtio-net-pci,netdev=n0,id=net0,romfile=/" + "a" * 400 + ",host_gso_limits=off",
    "-global", "driver=virtio-net-pci,property=host_gso_limits,value=" + "o" * 400,
]) + "\0")
# The machine type (lib/qemu_machine.c): Proxmox's and libvirt's -machine,
# -M and -machine in either order, and every name of test-doctor-machine's
# version table as a -machine of its own (the last one counts; each seed
# is also read whole as a name).
write("fuzz-qemu-machine", "proxmox", "\0".join([
    "/usr/bin/kvm", "-id", "100", "-name", "vm100,debug-threads=on", "-smp", "4,sockets=1",
    "-machine", "hpet=off,type=pc-q35-10.2+pve1", "-global", "kvm-pit.lost_tick_policy=discard",
]) + "\0")
write("fuzz-qemu-machine", "libvirt", "\0".join([
    "/usr/bin/qemu-system-x86_64", "-name", "guest=vm1,debug-threads=on", "-S",
    "-machine", "pc-q35-9.2,usb=off,dump-guest-core=off,memory-backend=pc.ram,hpet=off,acpi=on",
    "-accel", "kvm", "-cpu", "host,migratable=on",
]) + "\0")
write("fuzz-qemu-machine", "order", "\0".join([
    "-M", "pc-q35-11.0", "-machine", "pc-q35-10.2,type=pc-i440fx-10.1", "--M", "accel=kvm",
    "--machine", "q35", "-machine",
]) + "\0")
write("fuzz-qemu-machine", "versions", "\0".join(
    sum([["-machine", t] for t in [
        "pc-i440fx-11.0", "pc-q35-10.2", "pc-q35-10.2+pve1", "pc-i440fx-11.0+pve0",
        "pc-q35-9.2+pve12", "q35", "pc", "pc-q35-10.2+", "pc-q35-10.2+PVE1",
        "pc-q35-10.2+pve-1", "pc-q35-10.2x", "pc-q35-10", "pc-q35-1001.0", "virt-11.0"]], [])
) + "\0")
write("fuzz-qemu-machine", "spellings", "\0".join([
    "-machine", "accel=kvm,type", "-machine", '{"type":"pc-q35-10.2"}',
    "-machine", "accel=kvm,type=pc-q35-10.2,,x", "-machine", "notype",
]) + "\0")
write("fuzz-qemu-machine", "name", "pc-q35-10.2+pve1")
write("fuzz-qemu-machine", "name-big", "pc-q35-1001.0")
# A type longer than the doctor's 64 bytes, an item longer than is read.
write("fuzz-qemu-machine", "long", "\0".join([
    "-machine", "pc-q35-10.2", "-machine", "pc-q35-10.2-" + "a" * 80,
    "-M", "accel=kvm,memory-backend=" + "m" * 400 + ",type=pc-q35-11.0",
]) + "\0")
# QMP messages as gso-limitsd reads them from QEMU's socket (lib/json_value.c):
# the greeting, a reply, an error, an event, back to back as a stream.
write("fuzz-json-value", "greeting",
      '{"QMP": {"version": {"qemu": {"micro": 2, "minor": 2, "major": 10}, "package": ""}, '
      '"capabilities": ["oob"]}}\r\n')
write("fuzz-json-value", "stream",
      '{"return": {}, "id": "gso-1"}\r\n'
      '{"error": {"class": "GenericError", "desc": "Property \'host_gso_max\' not found"}, '
      '"id": "gso-2"}\r\n'
      '{"timestamp": {"seconds": 1764670000, "microseconds": 12}, "event": "NIC_RX_FILTER_CHANGED", '
      '"data": {"name": "net0", "path": "/machine/peripheral/net0/virtio-backend"}}\r\n')
write("fuzz-json-value", "values",
      '[null, true, false, -0, 9007199254740993, -9223372036854775808, 1.5e3, '
      '"\\u00e9\\ud83d\\ude00\\"\\\\", {"a": [[[]]], "a": {}}]')
# libvirtd's status file (lib/libvirt_status.c): dom2 of tests/tools-daemon-libvirt.sh as
# libvirtd 11.3 wrote it (status-dom2.xml in that test's log; qemuCaps cut to a few flags),
# dom1's interfaces (a bridge and a macvtap with privateData), then the cases
# test-limitsd-records reads: entities, double quotes, an interface in <metadata>, a disk's
# and a console's <target>, a <target> nested in the interface, an interface without alias.
LIBVIRT_HEAD = """<!--
WARNING: THIS IS AN AUTO-GENERATED FILE. CHANGES TO IT ARE LIKELY TO BE
OVERWRITTEN AND LOST. Changes to this xml configuration should be made using:
  virsh edit dom2
or other application using the libvirt API.
-->

<domstatus state='running' reason='booted' pid='27623'>
  <taint flag='custom-monitor'/>
  <taint flag='high-privileges'/>
  <monitor path='/var/lib/libvirt/qemu/domain-2-dom2/monitor.sock' type='unix'/>
  <vcpus>
    <vcpu id='0' pid='27628'/>
  </vcpus>
  <qemuCaps>
FLAGS
  </qemuCaps>
  <devices>
    <device alias='net0'/>
    <device alias='usb'/>
    <device alias='net1'/>
  </devices>
  <libDir path='/var/lib/libvirt/qemu/domain-2-dom2'/>
  <channelTargetDir path='/run/libvirt/qemu/channel/2-dom2'/>
  <memoryBackingDir path='/var/lib/libvirt/qemu/ram/2-dom2'/>
  <cpu mode='custom' match='exact' check='none'>
    <model fallback='forbid'>qemu64</model>
  </cpu>
  <rememberOwner/>
  <nodename index='0'/>
  <fdset index='0'/>
  <blockjobs active='no'/>
  <agentTimeout>-2</agentTimeout>
  <domain type='qemu' id='2'>
    <name>NAME</name>
    <uuid>84c09ad9-d6f0-4dcf-a2f3-00824447c23f</uuid>
METADATA    <memory unit='KiB'>65536</memory>
    <vcpu placement='static'>1</vcpu>
    <os>
      <type arch='x86_64' machine='pc-i440fx-11.0'>hvm</type>
      <loader type='rom'>/usr/share/qemu/qboot.rom</loader>
      <boot dev='hd'/>
    </os>
    <on_crash>destroy</on_crash>
    <devices>
      <emulator>/usr/bin/qemu-system-x86_64</emulator>
      <controller type='usb' index='0' model='piix3-uhci'>
        <alias name='usb'/>
        <address type='pci' domain='0x0000' bus='0x00' slot='0x01' function='0x2'/>
      </controller>
INTERFACES      <input type='mouse' bus='ps2'>
        <alias name='input0'/>
      </input>
      <memballoon model='none'/>
    </devices>
    <seclabel type='dynamic' model='dac' relabel='yes'>
      <label>+0:+0</label>
      <imagelabel>+0:+0</imagelabel>
    </seclabel>
  </domain>
</domstatus>
"""


def libvirt_iface(itype, source, dev, alias, extra=""):
    return ("      <interface type='%s'>\n        <mac address='52:54:00:55:09:7b'/>\n"
            "        %s\n        <target dev='%s'/>\n        <model type='virtio'/>\n"
            "%s%s        <address type='pci' domain='0x0000' bus='0x00' slot='0x02' "
            "function='0x0'/>\n      </interface>\n" % (
                itype, source, dev, "        <alias name='%s'/>\n" % alias if alias else "",
                extra))


def libvirt_status(name="dom2", ifaces="", metadata=""):
    return (LIBVIRT_HEAD.replace("FLAGS", FLAGS).replace("NAME", name)
            .replace("METADATA", metadata).replace("INTERFACES", ifaces))


FLAGS = """    <flag name='kvm'/>
    <flag name='netdev'/>
    <flag name='vhost-net'/>
    <flag name='virtio-net-pci.event_idx'/>
    <flag name='virtio-net.host_mtu'/>
    <flag name='virtio-net.rx_queue_size'/>
    <flag name='blockdev'/>"""
write("fuzz-libvirt-status", "dom2", libvirt_status(ifaces=(
    libvirt_iface("bridge", "<source bridge='br1'/>", "vnet1", "net0") +
    libvirt_iface("bridge", "<source bridge='br0'/>", "vnet2", "net1"))))
write("fuzz-libvirt-status", "dom1", libvirt_status(name="dom1", ifaces=(
    libvirt_iface("bridge", "<source bridge='br0'/>", "vnet0", "net0") +
    libvirt_iface("direct", "<source dev='nic2' mode='bridge'/>", "macvtap0", "net1",
                  "        <privateData>\n          <created value='yes'/>\n"
                  "        </privateData>\n"))))
write("fuzz-libvirt-status", "entities", libvirt_status(
    name="a&amp;b &lt;&#39;x&#x27;&gt;<![CDATA[&]]>", ifaces=(
        libvirt_iface("ethernet", '<source type="x"/>', "t&amp;1", "ua-net&#45;0"))))
write("fuzz-libvirt-status", "decoys", libvirt_status(
    metadata=("    <metadata>\n      <app xmlns='urn:x'><interface type='bridge'>"
              "<target dev='vnet0'/><alias name='ua-evil'/></interface></app>\n"
              "    </metadata>\n"),
    ifaces=("      <disk type='file' device='disk'>\n        <target dev='tap0' bus='virtio'/>\n"
            "        <alias name='virtio-disk0'/>\n      </disk>\n"
            "      <console type='pty'>\n        <target type='serial' port='0'/>\n"
            "        <alias name='serial0'/>\n      </console>\n" +
            "      <interface type=\"ethernet\"><source><target dev='vnet1'/></source>"
            "<alias name=\"ua-x\" /><target managed=\"no\"\n dev = \"vnet2\"/></interface>\n" +
            libvirt_iface("bridge", "<source bridge='br0'/>", "vnet0", None) +
            libvirt_iface("bridge", "<source bridge='br0'/>", "vnet0", "net0"))))
# A name virsh would misread (ID 7: gso-limitsd gives virsh the <uuid>) and a <metadata>
# nested beyond the levels the reader keeps (it counts them).
write("fuzz-libvirt-status", "deep", libvirt_status(
    name="7", metadata="    <metadata>" + "<m>" * 300 + "</m>" * 300 + "</metadata>\n",
    ifaces=libvirt_iface("bridge", "<source bridge='br0'/>", "vnet0", "net0")))
# QEMU 10.2's "info network" (lib/qemu_info_network.c), the project's QEMU's own output
# (-accel qtest), kept once, in test-limitsd-records: -net with a hub, a multi-queue tap
# whose downscript's path says ifname=tap0, a tap by name with a filter, a tap given as
# fd=23; QEMU 10.0's with a tap on -netdev hubport; then lines that only look like a tap's.


def c_string(path, name):
    """The text of C array @name in @path: its string literals, joined."""
    src = open(os.path.join(HERE, "..", path)).read()
    body = src[src.index("char %s[] =" % name):]
    body = body[:body.index(";\n")]
    return "".join(ast.literal_eval(lit) for lit in re.findall(r'"(?:[^"\\]|\\.)*"', body))


write("fuzz-qemu-info-network", "qemu", c_string("test/test-limitsd-records.c", "info_real"))
write("fuzz-qemu-info-network", "hubport", c_string("test/test-limitsd-records.c", "info_hubport"))
write("fuzz-qemu-info-network", "decoys", (
    "hub 0\r\n \\ hub0port1: #net153: index=0,type=user,net=10.0.2.0,restrict=off\r\n"
    "  - f0: type=filter-dump,file=/x,type=tap,ifname=tap0\r\n"
    "net0: index=0,type=nic,model=x,type=tap,ifname=tap0\r\n"
    " \\ n: index=0,type=tap,ifname=a,b,script=no\r\n"
    " \\ long" + "g" * 300 + ": index=0,type=tap,fd=3\r\n"
    " \\ n: index=,type=tap,ifname=tap0\n \\ : index=0,type=tap,ifname=tap0\n"
    " \\ n: index=0,type=tap,ifname=tap0"))
write("fuzz-vmm-cmdline", "fdinfo", "pos:\t0\nflags:\t0104002\nmnt_id:\t15\niff:\ttap0\n")

for name, text in [("u64", "65536"), ("seconds", "0.5"), ("ipv4", "192.0.2.1"),
                   ("pid-file", "27623\n"),
                   ("ipv6", "2001:db8::1"), ("v4mapped", "::ffff:192.0.2.1"),
                   ("label", "tap=/tmp/a=b.pcap")]:
    write("fuzz-numbers", name, text)

for name, data in [("ascii", b"eth0"), ("escapes", b"a\"b\\c\t\x7f"), ("utf8", "caf\u00e9 \U0001f427".encode()),
                   ("latin1", b"caf\xe9"), ("surrogate", b"\xed\xa0\x80")]:
    write("fuzz-json", name, data)
