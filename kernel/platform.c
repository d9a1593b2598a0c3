/*
 * kernel/platform.c: the board, read from the device tree.
 *
 * QEMU virt and any board with the same kinds of devices: memory, cpus with
 * timebase-frequency (and RISC-V's ISA strings, for Sstc), an ns16550a or PL011 UART, a RISC-V PLIC, or AIA's
 * APLIC and IMSIC (the S-level ones: kernel/arch/riscv64/irqchip.c), or an Arm
 * GIC (v2 or v3) with the Arm generic timer and PSCI, virtio-mmio slots,
 * a generic ECAM PCI host bridge,
 * an optional sifive,test0 device for exit codes, an optional Goldfish
 * RTC for wall time, /chosen/bootargs.
 * The one file that names the board's devices.
 */
#include <string.h>
#include <kernel/init.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/fdt.h>
#include <kernel/arch.h>

#define IRQ_S_EXTERNAL 9 /* RISC-V's supervisor external interrupt */

struct platform platform;

unsigned int platform_irq_spec(const void *p, int at, uint32_t ncells)
{
	if (ncells == 1 || ncells == 2)
		return fdt_cell(p, at);
	if (ncells != 3 || fdt_cell(p, at) > 1)
		return 0;
	return (fdt_cell(p, at) == 1 ? 16 : 32) + fdt_cell(p, at + 1);
}

/* Interrupt @index of @node as the controller numbers it (0: none). */
static unsigned int dt_irq(int node, int index)
{
	int len;
	const void *p = fdt_getprop(node, "interrupts", &len);
	int cells = platform.irq_cells >= 2 ? (int)platform.irq_cells : 1;
	unsigned int irq;

	if (!p || len < (index + 1) * cells * 4)
		return 0;
	irq = platform_irq_spec(p, index * cells, (uint32_t)cells);
	if (cells == 2 && irq < IRQ_SENSE_MAX)
		platform.irq_sense[irq] = (uint8_t)fdt_cell(p, index * 2 + 1);
	return irq;
}

static bool mmio_reg(int node, int index, struct platform_mmio_dev *dev)
{
	uint64_t base, size;

	if (node < 0 || !fdt_reg(node, index, &base, &size))
		return false;
	dev->base = base;
	dev->size = size;
	return true;
}

static bool mmio_dev(int node, struct platform_mmio_dev *dev)
{
	if (!mmio_reg(node, 0, dev))
		return false;
	dev->irq = dt_irq(node, 0);
	return true;
}

/* Arm's GIC, its generic timer and PSCI. A GIC whose registers the
 * device tree does not give is left out (no interrupts: said later). */
static void find_gic(void)
{
	int node = fdt_next_compatible(-1, "arm,gic-v3"), timer, psci;
	uint32_t cells = 0;

	if (node >= 0) {
		platform.gic_version = 3;
		if (!mmio_reg(node, 0, &platform.gicd) ||
		    !mmio_reg(node, 1, &platform.gicr))
			platform.gic_version = 0;
	} else {
		node = fdt_next_compatible(-1, "arm,cortex-a15-gic");
		if (node < 0)
			node = fdt_next_compatible(-1, "arm,gic-400");
		platform.gic_version = node >= 0 ? 2 : 0;
		if (node >= 0 && (!mmio_reg(node, 0, &platform.gicd) ||
				  !mmio_reg(node, 1, &platform.gicc)))
			platform.gic_version = 0;
	}
	if (node >= 0 && fdt_read_u32(node, "#interrupt-cells", &cells))
		platform.irq_cells = cells;
	/* the timer's interrupts: secure, non-secure physical, virtual, hyp */
	timer = fdt_next_compatible(-1, "arm,armv8-timer");
	if (timer >= 0)
		platform.timer_irq = dt_irq(timer, 2);
	psci = fdt_next_compatible(-1, "arm,psci-1.0");
	if (psci < 0)
		psci = fdt_next_compatible(-1, "arm,psci-0.2");
	platform.psci_method =
	    psci >= 0 ? fdt_getprop(psci, "method", NULL) : NULL;
}

/* RISC-V extension @ext among those of hart node @cpu: in the list of
 * riscv,isa-extensions, else between underscores in riscv,isa (the
 * multi-letter ones follow the base: rv64imafdc_zicsr_sstc). */
static bool hart_has_ext(int cpu, const char *ext)
{
	size_t n = strlen(ext);
	const char *p, *end;
	int len;

	p = fdt_getprop(cpu, "riscv,isa-extensions", &len);
	if (p) {
		for (end = p + len; p < end; p += strlen(p) + 1)
			if (!strcmp(p, ext))
				return true;
		return false;
	}
	p = fdt_getprop(cpu, "riscv,isa", &len);
	if (!p || !len || p[len - 1])
		return false;
	while ((p = strchr(p, '_'))) {
		p++;
		if (!strncmp(p, ext, n) && (p[n] == '_' || !p[n]))
			return true;
	}
	return false;
}

static void find_harts(unsigned long boot_hartid)
{
	int cpus = fdt_path_offset("/cpus"), cpu;
	bool sstc = true, seen = false;
	uint32_t tb = 0;

	if (fdt_read_u32(cpus, "timebase-frequency", &tb))
		platform.timebase_hz = tb;
	platform.hartids[0] = boot_hartid;
	platform.nharts = 1;
	fdt_for_each_child (cpu, cpus) {
		const char *type = fdt_getprop(cpu, "device_type", NULL);
		uint64_t hartid, unused;
		if (!type || strcmp(type, "cpu") || !fdt_status_okay(cpu) ||
		    !fdt_reg(cpu, 0, &hartid, &unused))
			continue;
		seen = true;
		sstc = sstc && hart_has_ext(cpu, "sstc");
		if (hartid == boot_hartid)
			continue;
		if (platform.nharts < MAX_CPUS)
			platform.hartids[platform.nharts++] = hartid;
		else
			platform.harts_ignored++;
	}
	platform.harts_sstc = seen && sstc;
}

static int logical_cpu_of_hart(unsigned long hartid)
{
	for (unsigned int i = 0; i < platform.nharts; i++)
		if (platform.hartids[i] == hartid)
			return (int)i;
	return -1;
}

/* PLIC contexts are listed in interrupts-extended as (cpu-intc, irq) pairs;
 * the pair with irq 9 (S external) gives a hart's S-mode context. */
static void find_plic(void)
{
	int node = fdt_next_compatible(-1, "riscv,plic0"), len;
	const void *ext;

	if (node < 0)
		node = fdt_next_compatible(-1, "sifive,plic-1.0.0");
	for (unsigned int i = 0; i < MAX_CPUS; i++)
		platform.plic_context[i] = -1;
	if (!mmio_dev(node, &platform.plic))
		return;
	fdt_read_u32(node, "riscv,ndev", &platform.plic_ndev);
	ext = fdt_getprop(node, "interrupts-extended", &len);
	for (int i = 0; ext && i < len / 8; i++) {
		int intc = fdt_node_by_phandle(fdt_cell(ext, 2 * i));
		int cpu = intc >= 0 ? fdt_path_offset("/cpus") : -1, c;
		if (fdt_cell(ext, 2 * i + 1) != 9 || cpu < 0)
			continue;
		fdt_for_each_child (c, cpu) {
			uint64_t hartid, unused;
			int child, logical;
			fdt_for_each_child (child, c) {
				if (child == intc &&
				    fdt_reg(c, 0, &hartid, &unused) &&
				    (logical = logical_cpu_of_hart(hartid)) >=
					0)
					platform.plic_context[logical] = i;
			}
		}
	}
}

/* Logical cpu whose interrupt controller node is @intc (-1: none). */
static int logical_cpu_of_intc(int intc)
{
	int cpus = fdt_path_offset("/cpus"), c, child;
	uint64_t hartid, unused;

	fdt_for_each_child (c, cpus)
		fdt_for_each_child (child, c)
			if (child == intc && fdt_reg(c, 0, &hartid, &unused))
				return logical_cpu_of_hart(hartid);
	return -1;
}

/* The S-level IMSIC: its interrupts-extended lists (hart intc, 9) pairs,
 * the i-th naming the hart of interrupt file i. */
static void find_imsic(void)
{
	int len;
	const void *ext = NULL;
	int n;

	for (unsigned int i = 0; i < MAX_CPUS; i++)
		platform.imsic_file[i] = -1;
	for (n = fdt_next_compatible(-1, "riscv,imsics"); n >= 0;
	     n = fdt_next_compatible(n, "riscv,imsics")) {
		ext = fdt_getprop(n, "interrupts-extended", &len);
		if (fdt_status_okay(n) && ext && len >= 8 &&
		    fdt_cell(ext, 1) == IRQ_S_EXTERNAL)
			break;
	}
	if (n < 0)
		return;
	platform.imsic_phandle = 0;
	fdt_read_u32(n, "phandle", &platform.imsic_phandle);
	fdt_read_u32(n, "riscv,num-ids", &platform.imsic_num_ids);
	fdt_read_u32(n, "riscv,guest-index-bits", &platform.imsic_guest_bits);
	for (int i = 0; i < len / 8; i++) {
		int cpu = logical_cpu_of_intc(
		    fdt_node_by_phandle(fdt_cell(ext, 2 * i)));
		if (cpu >= 0)
			platform.imsic_file[cpu] = i;
	}
	/* no reg: base stays 0, size says it was found (irqchip.c reports) */
	if (!mmio_reg(n, 0, &platform.imsic))
		platform.imsic.size = 1;
}

/* The S-level APLIC domain: a riscv,aplic that delegates to no child. Its
 * specifiers have 2 cells (source, sense). */
static void find_aplic(void)
{
	int n;
	uint32_t cells = 0;

	for (n = fdt_next_compatible(-1, "riscv,aplic"); n >= 0;
	     n = fdt_next_compatible(n, "riscv,aplic"))
		if (fdt_status_okay(n) &&
		    !fdt_getprop(n, "riscv,children", NULL))
			break;
	if (n < 0 || !mmio_reg(n, 0, &platform.aplic))
		return;
	fdt_read_u32(n, "riscv,num-sources", &platform.aplic_nsources);
	fdt_read_u32(n, "msi-parent", &platform.aplic_msi_parent);
	/* a PLIC, if there is one too, is what whole uses for wired sources */
	if (fdt_read_u32(n, "#interrupt-cells", &cells) &&
	    fdt_next_compatible(-1, "riscv,plic0") < 0 &&
	    fdt_next_compatible(-1, "sifive,plic-1.0.0") < 0)
		platform.irq_cells = cells;
}

static void find_virtio(void)
{
	for (int n = fdt_next_compatible(-1, "virtio,mmio"); n >= 0;
	     n = fdt_next_compatible(n, "virtio,mmio")) {
		if (platform.nvirtio == PLATFORM_MAX_VIRTIO)
			platform.virtio_ignored++;
		else if (mmio_dev(n, &platform.virtio[platform.nvirtio]))
			platform.nvirtio++;
	}
	/* QEMU lists slots from the highest address down; probe in address
	 * order. */
	for (unsigned int i = 1; i < platform.nvirtio; i++)
		for (unsigned int j = i; j > 0 && platform.virtio[j - 1].base >
						      platform.virtio[j].base;
		     j--) {
			struct platform_mmio_dev t = platform.virtio[j];
			platform.virtio[j] = platform.virtio[j - 1];
			platform.virtio[j - 1] = t;
		}
}

static void find_pci_host(void)
{
	static const char compatible[] = "pci-host-ecam-generic";
	int n = fdt_next_compatible(-1, compatible);

	while (n >= 0 && !fdt_status_okay(n))
		n = fdt_next_compatible(n, compatible);
	platform.pci_host = n;
	while (n >= 0 && (n = fdt_next_compatible(n, compatible)) >= 0)
		platform.pci_hosts_ignored += fdt_status_okay(n);
}

int platform_init(unsigned long boot_hartid, const void *dtb)
{
	int node;
	uint64_t unused;

	if (fdt_init(dtb))
		return -1;
	platform.dtb = (uintptr_t)dtb;
	platform.dtb_size = __builtin_bswap32(((const uint32_t *)dtb)[1]);
	node = fdt_path_offset("/memory");
	if (node < 0 ||
	    !fdt_reg(node, 0, &platform.mem_base, &platform.mem_size))
		return -1;
	find_harts(boot_hartid);
	if (!platform.timebase_hz)
		platform.timebase_hz = arch_counter_hz();
	find_gic(); /* before the devices: its #interrupt-cells */
	find_imsic();
	find_aplic(); /* the same */
	node = fdt_next_compatible(-1, "ns16550a");
	if (mmio_dev(node, &platform.uart))
		platform.uart_type = UART_NS16550;
	else if (mmio_dev(node = fdt_next_compatible(-1, "arm,pl011"),
			  &platform.uart))
		platform.uart_type = UART_PL011;
	fdt_read_u32(node, "clock-frequency", &platform.uart_clock);
	find_plic();
	find_virtio();
	find_pci_host();
	node = fdt_next_compatible(-1, "sifive,test0");
	if (node >= 0 &&
	    fdt_reg(node, 0, &platform.test_base, &unused) == false)
		platform.test_base = 0;
	mmio_dev(fdt_next_compatible(-1, "google,goldfish-rtc"), &platform.rtc);
	platform.bootargs =
	    fdt_getprop(fdt_path_offset("/chosen"), "bootargs", NULL);
	if (!platform.bootargs)
		platform.bootargs = "";
	return 0;
}

/* platform_init runs before the console: say what it left out now. */
static int platform_report_limits(void)
{
	if (platform.harts_ignored)
		pr_warn("platform: the device tree has %u harts; whole runs on "
			"the first %u (MAX_CPUS), the other %u stay stopped\n",
			platform.nharts + platform.harts_ignored,
			platform.nharts,
			platform.harts_ignored);
	if (platform.virtio_ignored)
		pr_warn("platform: %u virtio-mmio slots past the first %u "
			"(PLATFORM_MAX_VIRTIO) are not probed\n",
			platform.virtio_ignored,
			PLATFORM_MAX_VIRTIO);
	if (platform.pci_hosts_ignored)
		pr_warn("platform: %u PCI host bridges past the first are not "
			"used\n",
			platform.pci_hosts_ignored);
	return 0;
}
INIT_HOOK(platform_limits, platform_report_limits, INIT_LEVEL_ARCH);

/* Exit code to the host through sifive_test: 0x5555 passes, anything else
 * is (code << 16) | 0x3333. Without the device, SBI system reset. */
void platform_poweroff(int code)
{
	if (platform.test_base) {
		uint32_t v = code ? ((uint32_t)code << 16) | 0x3333 : 0x5555;
		*(volatile uint32_t *)platform.test_base = v;
	}
	arch_firmware_poweroff(code);
}

/* Goldfish RTC: nanoseconds since the epoch; reading TIME_LOW latches
 * TIME_HIGH, so LOW is read first. */
#define GOLDFISH_RTC_TIME_LOW  0x00
#define GOLDFISH_RTC_TIME_HIGH 0x04

uint64_t platform_wall_ns(void)
{
	uint64_t lo, hi;

	if (!platform.rtc.base)
		return 0;
	lo = mmio_read32(platform.rtc.base + GOLDFISH_RTC_TIME_LOW);
	hi = mmio_read32(platform.rtc.base + GOLDFISH_RTC_TIME_HIGH);
	return hi << 32 | lo;
}
