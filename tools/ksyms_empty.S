/* First-pass stand-in for the kernel symbol table (see tools/ksyms.py). */
	.section .ksyms, "a"
	.balign 8
	.globl ksyms_count
ksyms_count:
	.quad 0
	.globl ksyms_addrs
ksyms_addrs:
	.globl ksyms_names
	.globl ksyms_offsets
ksyms_offsets:
ksyms_names:
	.byte 0
