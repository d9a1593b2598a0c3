#!/usr/bin/env python3
"""tools/test_profile.py: tools/profile.py samples where the harts are.

A boot that does little but copy memory (`bench memcpy`) must give
samples, more of them in memcpy (named with its caller, a leaf) than in
any other function, none of idle harts unless asked, and no kernel report
on its console (tools/kconsole.py); the symbol lookup names addresses by the function
that holds them."""
import unittest

import kconsole
import profile as wprofile  # tools/profile.py, not the standard module


class ProfileTest(unittest.TestCase):
    def test_a_copy_loop_is_found_in_memcpy(self):
        counts, console = wprofile.profile("bench -r 20 memcpy", smp=2, mem="256M")
        kconsole.check(console)
        total = sum(counts.values())
        self.assertIn('"bench": "memcpy_1m"', console)
        self.assertGreater(total, 50, counts)
        # the busiest function: a loaded host adds timer and firmware
        # samples, but not more than the copies
        self.assertTrue(counts.most_common(1)[0][0].startswith("memcpy <- "),
                        counts.most_common(8))
        self.assertNotIn(wprofile.IDLE, counts)

    def test_symbols_name_the_enclosing_function(self):
        syms = wprofile.Symbols(wprofile.ELF)
        addr = dict((n, a) for a, n in syms.syms)["memcpy"]
        self.assertEqual(syms.name(addr), "memcpy")
        self.assertEqual(syms.name(addr + 2), "memcpy")
        self.assertEqual(syms.name(0x80000800), wprofile.FIRMWARE)


if __name__ == "__main__":
    unittest.main()
