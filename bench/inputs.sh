# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# bench/inputs.sh: the inputs and commands of the workloads that
# bench/itlb-workloads.sh simulates and bench/counters.sh counts, so that
# both run the very same work.  Sourced after bench/lib.sh.
#   gcc-c    cc1 (gcc-12) -O2 of tests/phdr-dump.c, preprocessed
#   gcc-cxx  cc1plus (g++-12) -O2 -std=c++17 of unit.cc below, preprocessed
#   clang-c  clang-14 -O2 -c of the same C, preprocessed by clang
#   rustc    rustc -O --emit=obj of crate.rs below (Debian's rustc)
#   node     node running tsc over the project below (inputs_make does not
#            fetch it: bench/itlb-workloads.sh does)

# The programs.
CC1=$(gcc-12 -print-prog-name=cc1 2>/dev/null || true)
CC1PLUS=$(gcc-12 -print-prog-name=cc1plus 2>/dev/null || true)
CLANG=$(readlink -f "$(command -v clang-14 2>/dev/null)" 2>/dev/null || true)
RUSTC=/usr/bin/rustc

# workload_describe NAME: a line for the report.
workload_describe () {
	case $1 in
	gcc-c) echo "cc1 -O2 of tests/phdr-dump.c, preprocessed ($CC1)" ;;
	gcc-cxx) echo "cc1plus -O2 -std=c++17 of a C++ unit using the standard library's templates ($CC1PLUS)" ;;
	clang-c) echo "clang-14 -O2 -c of tests/phdr-dump.c, preprocessed by clang ($CLANG, libclang-cpp, libLLVM)" ;;
	rustc) echo "rustc -O --emit=obj of a 150-line crate ($RUSTC, librustc_driver, libLLVM)" ;;
	*) bench_die "unknown workload $1" ;;
	esac
}

# workload_objects NAME: the ELF files whose text the workload runs most,
# which the arms copy.
workload_objects () {
	case $1 in
	gcc-c) echo "$CC1" ;;
	gcc-cxx) echo "$CC1PLUS" ;;
	clang-c) echo "$CLANG"; ldd "$CLANG" | sed -n 's/.*=> \(\/[^ ]*\(libclang-cpp\|libLLVM\)[^ ]*\) .*/\1/p' ;;
	rustc) echo "$RUSTC"; ldd "$RUSTC" | sed -n 's/.*=> \(\/[^ ]*\(librustc_driver\|libstd-\|libLLVM\)[^ ]*\) .*/\1/p' ;;
	*) bench_die "unknown workload $1" ;;
	esac
}

# workload_command NAME BIN IN OUT: the command line, the programs from
# directory BIN (their copies; the libraries come from it too through
# LD_LIBRARY_PATH, which the caller sets), or from their own places when
# BIN is empty; inputs in IN; output to OUT.
workload_command () {
	local w=$1 bin=$2 in=$3 out=$4 p
	case $w in
	gcc-c) p=${bin:+$bin/${CC1##*/}}; echo "${p:-$CC1} -quiet -O2 $in/phdr-dump.i -o $out" ;;
	gcc-cxx) p=${bin:+$bin/${CC1PLUS##*/}}; echo "${p:-$CC1PLUS} -quiet -O2 -std=c++17 $in/unit.ii -o $out" ;;
	clang-c) p=${bin:+$bin/${CLANG##*/}}; echo "${p:-$CLANG} -O2 -c $in/phdr-dump.clang.i -o $out" ;;
	rustc) p=${bin:+$bin/${RUSTC##*/}}; echo "${p:-$RUSTC} --sysroot /usr -O --edition 2021 --crate-type lib --emit=obj -o $out $in/crate.rs" ;;
	*) bench_die "unknown workload $w" ;;
	esac
}

# inputs_make DIR NAMES: the inputs of the workloads NAMES (comma-separated)
# into DIR; dies naming what is missing.
inputs_make () {
	local dir=$1 names=",$2," here i
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	mkdir -p "$dir"
	if [[ $names == *,gcc-c,* ]]; then
		[ -n "$CC1" ] && [ -x "$CC1" ] || bench_die "gcc-12's cc1 not found"
		gcc-12 -E -I"$here/../tests" -I"$here/../src" -include stdint.h "$here/../tests/phdr-dump.c" \
			-o "$dir/phdr-dump.i" 2>"$dir/cpp.log" || bench_die "cannot preprocess tests/phdr-dump.c: $(head -3 "$dir/cpp.log")"
	fi
	if [[ $names == *,clang-c,* ]]; then
		# (clang's own preprocessor: glibc's headers give GCC attributes clang refuses)
		[ -x "$CLANG" ] || bench_die "clang-14 not found"
		"$CLANG" -E -I"$here/../tests" -I"$here/../src" -include stdint.h "$here/../tests/phdr-dump.c" \
			-o "$dir/phdr-dump.clang.i" 2>"$dir/cpp.log" || bench_die "cannot preprocess tests/phdr-dump.c with clang: $(head -3 "$dir/cpp.log")"
	fi
	if [[ $names == *,gcc-cxx,* ]]; then
		cat >"$dir/unit.cc" <<'EOF'
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

struct Rec { std::string name; int n; double w; };

template <typename T, typename F>
std::vector<T> keep (const std::vector<T> &v, F f)
{
  std::vector<T> out;
  std::copy_if (v.begin (), v.end (), std::back_inserter (out), f);
  return out;
}

int
main (int argc, char **argv)
{
  std::vector<Rec> recs;
  std::regex line (R"(^(\w+)\s+(\d+)\s+([0-9.]+)$)");
  std::string s;
  while (std::getline (std::cin, s))
    {
      std::smatch m;
      if (std::regex_match (s, m, line))
	recs.push_back ({ m[1], std::stoi (m[2]), std::stod (m[3]) });
    }
  std::map<std::string, std::vector<double>> by;
  std::unordered_map<int, std::shared_ptr<Rec>> idx;
  for (auto &r : recs)
    {
      by[r.name].push_back (r.w);
      idx.emplace (r.n, std::make_shared<Rec> (r));
    }
  std::sort (recs.begin (), recs.end (), [] (const Rec &a, const Rec &b) { return a.w < b.w; });
  auto big = keep (recs, [] (const Rec &r) { return r.n > 10; });
  std::function<double (const std::vector<double> &)> sum = [] (const std::vector<double> &v) {
    double t = 0;
    for (double x : v)
      t += x;
    return t;
  };
  std::ostringstream os;
  for (auto &[k, v] : by)
    os << k << ' ' << sum (v) << '\n';
  std::cout << os.str () << big.size () << ' ' << idx.size () << ' ' << argc << argv[0][0] << '\n';
  return 0;
}
EOF
		g++-12 -E -std=c++17 "$dir/unit.cc" -o "$dir/unit.ii" || bench_die "cannot preprocess the C++ unit"
	fi
	if [[ $names == *,rustc,* ]]; then
		[ -x "$RUSTC" ] || bench_die "$RUSTC not found (Debian: package rustc)"
		cat >"$dir/crate.rs" <<'EOF'
use std::collections::{BTreeMap, HashMap};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Token { Num(f64), Ident(String), Op(char), Open, Close }

pub struct Lexer<'a> { chars: std::iter::Peekable<std::str::Chars<'a>> }

impl<'a> Lexer<'a> {
    pub fn new(s: &'a str) -> Self { Lexer { chars: s.chars().peekable() } }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Token;
    fn next(&mut self) -> Option<Token> {
        while let Some(&c) = self.chars.peek() {
            if c.is_whitespace() { self.chars.next(); } else { break; }
        }
        let c = self.chars.next()?;
        Some(match c {
            '0'..='9' | '.' => {
                let mut s = c.to_string();
                while let Some(&d) = self.chars.peek() {
                    if d.is_ascii_digit() || d == '.' { s.push(d); self.chars.next(); } else { break; }
                }
                Token::Num(s.parse().unwrap_or(0.0))
            }
            'a'..='z' | 'A'..='Z' => {
                let mut s = c.to_string();
                while let Some(&d) = self.chars.peek() {
                    if d.is_alphanumeric() { s.push(d); self.chars.next(); } else { break; }
                }
                Token::Ident(s)
            }
            '(' => Token::Open,
            ')' => Token::Close,
            o => Token::Op(o),
        })
    }
}

pub trait Eval { fn eval(&self, env: &HashMap<String, f64>) -> Result<f64, String>; }

#[derive(Debug)]
pub enum Expr { Num(f64), Var(String), Bin(Box<Expr>, char, Box<Expr>) }

impl Eval for Expr {
    fn eval(&self, env: &HashMap<String, f64>) -> Result<f64, String> {
        match self {
            Expr::Num(n) => Ok(*n),
            Expr::Var(v) => env.get(v).copied().ok_or_else(|| format!("unbound {}", v)),
            Expr::Bin(a, op, b) => {
                let (x, y) = (a.eval(env)?, b.eval(env)?);
                match op { '+' => Ok(x + y), '-' => Ok(x - y), '*' => Ok(x * y),
                           '/' => if y == 0.0 { Err("division by zero".into()) } else { Ok(x / y) },
                           _ => Err(format!("operator {}", op)) }
            }
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self { Expr::Num(n) => write!(f, "{}", n), Expr::Var(v) => write!(f, "{}", v),
                     Expr::Bin(a, o, b) => write!(f, "({} {} {})", a, o, b) }
    }
}

pub fn parse(tokens: &[Token]) -> Option<(Expr, &[Token])> {
    let (mut lhs, mut rest) = atom(tokens)?;
    while let Some(Token::Op(o)) = rest.first() {
        let (rhs, r) = atom(&rest[1..])?;
        lhs = Expr::Bin(Box::new(lhs), *o, Box::new(rhs));
        rest = r;
    }
    Some((lhs, rest))
}

fn atom(t: &[Token]) -> Option<(Expr, &[Token])> {
    match t.first()? {
        Token::Num(n) => Some((Expr::Num(*n), &t[1..])),
        Token::Ident(s) => Some((Expr::Var(s.clone()), &t[1..])),
        Token::Open => { let (e, r) = parse(&t[1..])?; match r.first() { Some(Token::Close) => Some((e, &r[1..])), _ => None } }
        _ => None,
    }
}

pub fn run(src: &str) -> BTreeMap<String, String> {
    let env: HashMap<String, f64> = (0..10).map(|i| (format!("x{}", i), i as f64)).collect();
    src.lines().enumerate().map(|(i, l)| {
        let toks: Vec<Token> = Lexer::new(l).collect();
        let v = match parse(&toks) { Some((e, [])) => match e.eval(&env) { Ok(v) => format!("{} = {}", e, v), Err(m) => m }, _ => "syntax".to_string() };
        (format!("{:04}", i), v)
    }).collect()
}
EOF
	fi
	if [[ $names == *,node,* ]]; then
		mkdir -p "$dir/ts"
		for i in 1 2 3 4; do
			cat >"$dir/ts/m$i.ts" <<EOF
export interface Item$i<T> { id: number; value: T; tags: string[] }
export class Store$i<T> {
  private items = new Map<number, Item$i<T>>();
  add(item: Item$i<T>): this { this.items.set(item.id, item); return this; }
  find(pred: (i: Item$i<T>) => boolean): Item$i<T>[] { return [...this.items.values()].filter(pred); }
  map<U>(f: (v: T) => U): Store$i<U> {
    const s = new Store$i<U>();
    for (const it of this.items.values()) s.add({ id: it.id, value: f(it.value), tags: [...it.tags] });
    return s;
  }
}
export function total$i(s: Store$i<number>): number { return s.find(() => true).reduce((a, b) => a + b.value, 0); }
EOF
		done
		printf '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2020", "lib": ["es2020"] }, "files": ["m1.ts", "m2.ts", "m3.ts", "m4.ts"] }\n' >"$dir/ts/tsconfig.json"
	fi
}
