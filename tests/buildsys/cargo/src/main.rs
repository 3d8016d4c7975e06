/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
//! 4.5 MiB of `ret` instructions under one hidden symbol; main calls into
//! every MiB of it and says how many calls returned.
use std::arch::global_asm;

global_asm!(
    ".pushsection .text.big_text, \"ax\", @progbits",
    ".globl big_text",
    ".hidden big_text",
    "big_text:",
    ".fill 0x480000, 1, 0xc3",
    ".popsection",
);

extern "C" {
    static big_text: [u8; 0x480000];
}

fn main() {
    let mut n = 0;
    for off in (0..0x480000).step_by(0x100000) {
        unsafe {
            let f: extern "C" fn() = std::mem::transmute(big_text.as_ptr().add(off));
            f();
        }
        n += 1;
    }
    println!("bigtext: program {}", n);
}
