/*
 * drivers/uart.h: the serial console, whichever UART the board has.
 *
 * Output is polled (printk must work anywhere, even in panic). Input comes
 * from the receive interrupt into a ring buffer; uart_getc() sleeps until a
 * character arrives. A UART driver (drivers/uart_ns16550.c,
 * drivers/uart_pl011.c) that finds its device in `platform` hands its
 * register operations to uart_register() at INIT_LEVEL_EARLY; the receive
 * interrupt is taken at INIT_LEVEL_DEVICE.
 */
#pragma once

#include <kernel/compiler.h>

struct uart_ops {
	void (*putc)(char c);	  /* polled: waits for room */
	bool (*rx_ready)(void);	  /* a received byte waits */
	uint8_t (*rx_read)(void); /* take it */
	void (*rx_irq)(bool on);  /* receive interrupt on or off */
};

/* Make @ops the console (the first one wins). Return: 0 or -EBUSY. */
int uart_register(const struct uart_ops *ops);
/* Next input character; sleeps until there is one. */
int uart_getc(void);
