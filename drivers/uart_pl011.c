/*
 * drivers/uart_pl011.c: Arm's PL011 UART at platform.uart (device tree
 * compatible "arm,pl011"), as the console (drivers/uart.h). The firmware
 * (or QEMU) set the baud rate; this driver only turns on the FIFOs, the
 * transmitter and receiver, and the receive interrupts.
 */
#include <drivers/uart.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/platform.h>

#define PL011_DR    0x00      /* data */
#define PL011_FR    0x18      /* flags */
#define PL011_LCR_H 0x2c      /* line control */
#define PL011_CR    0x30      /* control */
#define PL011_IMSC  0x38      /* interrupt mask set/clear */
#define PL011_ICR   0x44      /* interrupt clear */
#define FR_RXFE	    (1u << 4) /* receive FIFO empty */
#define FR_TXFF	    (1u << 5) /* transmit FIFO full */
#define LCR_H_FEN   (1u << 4) /* FIFOs on */
#define LCR_H_WLEN8 (3u << 5) /* 8 data bits */
#define CR_UARTEN   (1u << 0)
#define CR_TXE	    (1u << 8)
#define CR_RXE	    (1u << 9)
#define IMSC_RX	    (1u << 4) /* receive */
#define IMSC_RT	    (1u << 6) /* receive timeout: FIFO not empty, idle */

static uint32_t reg_read(unsigned int r)
{
	return mmio_read32(platform.uart.base + r);
}

static void reg_write(unsigned int r, uint32_t v)
{
	mmio_write32(platform.uart.base + r, v);
}

static void pl011_putc(char c)
{
	while (reg_read(PL011_FR) & FR_TXFF)
		arch_cpu_relax();
	reg_write(PL011_DR, (uint8_t)c);
}

static bool pl011_rx_ready(void)
{
	return !(reg_read(PL011_FR) & FR_RXFE);
}

static uint8_t pl011_rx_read(void)
{
	return (uint8_t)reg_read(PL011_DR);
}

/* The receive interrupts are levels from the FIFO's state: reading the
 * FIFO empty clears them; masking them stops them. */
static void pl011_rx_irq(bool on)
{
	reg_write(PL011_IMSC, on ? IMSC_RX | IMSC_RT : 0);
}

static const struct uart_ops pl011_ops = {
	.putc = pl011_putc,
	.rx_ready = pl011_rx_ready,
	.rx_read = pl011_rx_read,
	.rx_irq = pl011_rx_irq,
};

static int pl011_init(void)
{
	if (platform.uart_type != UART_PL011)
		return 0; /* another UART's board */
	reg_write(PL011_IMSC, 0);
	reg_write(PL011_ICR, 0x7ff);
	reg_write(PL011_LCR_H, LCR_H_FEN | LCR_H_WLEN8);
	reg_write(PL011_CR, CR_UARTEN | CR_TXE | CR_RXE);
	return uart_register(&pl011_ops);
}
INIT_HOOK(uart_pl011, pl011_init, INIT_LEVEL_EARLY);
