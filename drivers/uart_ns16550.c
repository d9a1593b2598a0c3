/*
 * drivers/uart_ns16550.c: ns16550a UART at platform.uart.
 *
 * Lock: rx_lock (irqsave) guards the receive ring; readers sleep on rx_wait.
 * Input is never dropped: while the ring is full the receive interrupt is
 * off and bytes wait in the UART (QEMU then stops sending until the FIFO
 * has room), and the reader turns it back on when it takes a byte.
 */
#include <errno.h>
#include <drivers/uart_ns16550.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/wait.h>

#define UART_RBR 0 /* receive buffer (read) */
#define UART_THR 0 /* transmit holding (write) */
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_LSR 5
#define LSR_DR	 0x01
#define LSR_THRE 0x20
#define IER_RX	 0x01

#define RX_SIZE 256

static DEFINE_SPINLOCK(rx_lock);
static DEFINE_WAIT_QUEUE_HEAD(rx_wait);
static char rx_buf[RX_SIZE];
/* protected by rx_lock: */
static unsigned int rx_head, rx_tail;
static bool rx_stopped; /* ring full, receive interrupt off */

static uint8_t reg_read(unsigned int r)
{
	return mmio_read8(platform.uart.base + r);
}

static void reg_write(unsigned int r, uint8_t v)
{
	mmio_write8(platform.uart.base + r, v);
}

void uart_putc(char c)
{
	while (!(reg_read(UART_LSR) & LSR_THRE))
		arch_cpu_relax();
	reg_write(UART_THR, (uint8_t)c);
}

static void uart_interrupt(void *arg)
{
	(void)arg;
	spin_lock(&rx_lock);
	while (reg_read(UART_LSR) & LSR_DR) {
		if (rx_head - rx_tail == RX_SIZE) {
			reg_write(UART_IER, 0);
			rx_stopped = true;
			break;
		}
		rx_buf[rx_head++ % RX_SIZE] = (char)reg_read(UART_RBR);
	}
	spin_unlock(&rx_lock);
	wake_up_all(&rx_wait);
}

static bool rx_take(int *c)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);
	bool ok = rx_head != rx_tail;

	if (ok)
		*c = (unsigned char)rx_buf[rx_tail++ % RX_SIZE];
	if (ok && rx_stopped) {
		rx_stopped = false;
		reg_write(UART_IER, IER_RX);
	}
	spin_unlock_irqrestore(&rx_lock, flags);
	return ok;
}

int uart_getc(void)
{
	int c;

	wait_event(&rx_wait, rx_take(&c));
	return c;
}

static int uart_init(void)
{
	if (!platform.uart.base)
		return -ENODEV;
	reg_write(UART_FCR, 0x07); /* enable and clear FIFOs */
	console_putc = uart_putc;
	return 0;
}
INIT_HOOK(uart, uart_init, INIT_LEVEL_EARLY);

static int uart_irq_init(void)
{
	int err = irq_register(platform.uart.irq, uart_interrupt, NULL);

	if (!err)
		reg_write(UART_IER, IER_RX);
	return err;
}
INIT_HOOK(uart_irq, uart_irq_init, INIT_LEVEL_DEVICE);
