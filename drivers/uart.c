/*
 * drivers/uart.c: console input for whichever UART registered
 * (drivers/uart.h).
 *
 * Lock: rx_lock (irqsave) guards the receive ring; readers sleep on rx_wait.
 * Input is never dropped: while the ring is full the receive interrupt is
 * off and bytes wait in the UART (QEMU then stops sending until the FIFO
 * has room), and the reader turns it back on when it takes a byte.
 */
#include <errno.h>
#include <drivers/uart.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>

#define RX_SIZE 256

static const struct uart_ops *uart; /* set once, at INIT_LEVEL_EARLY */
static DEFINE_SPINLOCK(rx_lock);
static DEFINE_WAIT_QUEUE_HEAD(rx_wait);
static char rx_buf[RX_SIZE];
/* protected by rx_lock: */
static unsigned int rx_head, rx_tail;
static bool rx_stopped; /* ring full, receive interrupt off */

int uart_register(const struct uart_ops *ops)
{
	if (uart)
		return -EBUSY;
	uart = ops;
	console_register(ops->putc);
	return 0;
}

static void uart_interrupt(void *arg)
{
	(void)arg;
	spin_lock(&rx_lock);
	while (uart->rx_ready()) {
		if (rx_head - rx_tail == RX_SIZE) {
			uart->rx_irq(false);
			rx_stopped = true;
			break;
		}
		rx_buf[rx_head++ % RX_SIZE] = (char)uart->rx_read();
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
		uart->rx_irq(true);
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

static int uart_irq_init(void)
{
	int err;

	if (!uart)
		return -ENODEV;
	err = irq_register(platform.uart.irq, uart_interrupt, NULL);
	if (!err)
		uart->rx_irq(true);
	return err;
}
INIT_HOOK(uart_irq, uart_irq_init, INIT_LEVEL_DEVICE);
