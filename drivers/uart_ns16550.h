/*
 * drivers/uart_ns16550.h: the ns16550a serial console.
 *
 * Output is polled (printk must work anywhere, even in panic). Input comes
 * from the receive interrupt into a ring buffer; uart_getc() sleeps until a
 * character arrives.
 */
#pragma once

#include <kernel/compiler.h>

void uart_putc(char c);
/* Next input character; sleeps until there is one. */
int uart_getc(void);
