/*
 * drivers/uart_ns16550.c: the ns16550a UART at platform.uart, as the
 * console (drivers/uart.h).
 */
#include <drivers/uart.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/platform.h>

#define UART_RBR 0 /* receive buffer (read) */
#define UART_THR 0 /* transmit holding (write) */
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_LSR 5
#define LSR_DR	 0x01
#define LSR_THRE 0x20
#define IER_RX	 0x01

static uint8_t reg_read(unsigned int r)
{
	return mmio_read8(platform.uart.base + r);
}

static void reg_write(unsigned int r, uint8_t v)
{
	mmio_write8(platform.uart.base + r, v);
}

static void ns16550_putc(char c)
{
	while (!(reg_read(UART_LSR) & LSR_THRE))
		arch_cpu_relax();
	reg_write(UART_THR, (uint8_t)c);
}

static bool ns16550_rx_ready(void)
{
	return reg_read(UART_LSR) & LSR_DR;
}

static uint8_t ns16550_rx_read(void)
{
	return reg_read(UART_RBR);
}

static void ns16550_rx_irq(bool on)
{
	reg_write(UART_IER, on ? IER_RX : 0);
}

static const struct uart_ops ns16550_ops = {
	.putc = ns16550_putc,
	.rx_ready = ns16550_rx_ready,
	.rx_read = ns16550_rx_read,
	.rx_irq = ns16550_rx_irq,
};

static int ns16550_init(void)
{
	if (platform.uart_type != UART_NS16550)
		return 0;	   /* another UART's board */
	reg_write(UART_FCR, 0x07); /* enable and clear FIFOs */
	return uart_register(&ns16550_ops);
}
INIT_HOOK(uart, ns16550_init, INIT_LEVEL_EARLY);
