"""Realistic agent actions for bench/executor_speed.py: what models write in code-agent steps."""

from __future__ import annotations

SNIPPETS: dict[str, str] = {
    "loop_accumulate": """
total = 0
for i in range(20000):
    if i % 3 == 0:
        total += i * i
total
""",
    "list_comprehension": """
squares = [x * x for x in range(20000) if x % 2]
evens = [s for s in squares if s % 5 == 0]
len(evens)
""",
    "string_work": """
words = ("the quick brown fox jumps over the lazy dog " * 400).split()
counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
report = ", ".join(f"{w}={c}" for w, c in sorted(counts.items()))
title = " ".join(w.capitalize() for w in words[:50])
len(report) + len(title)
""",
    "sort_dicts": """
import random
random.seed(0)
rows = [{"name": f"item{i}", "price": random.random() * 100, "qty": random.randint(1, 9)} for i in range(3000)]
rows.sort(key=lambda r: (-r["price"] * r["qty"], r["name"]))
top = [r["name"] for r in rows[:10]]
top
""",
    "recursion_fib": """
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fib(20)
""",
    "classes": """
class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance
        self.history = []
    def deposit(self, amount):
        self.balance += amount
        self.history.append(("dep", amount))
    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient")
        self.balance -= amount
        self.history.append(("wd", amount))
accounts = [Account(f"user{i}") for i in range(300)]
for i, a in enumerate(accounts):
    for j in range(20):
        a.deposit(j + i)
        if j % 4 == 0:
            a.withdraw(j)
sum(a.balance for a in accounts)
""",
    "try_except": """
parsed, errors = [], 0
for token in ["12", "x", "3.5", "", "7"] * 2000:
    try:
        parsed.append(int(token))
    except ValueError:
        errors += 1
(len(parsed), errors)
""",
    "math_statistics": """
import math, statistics
values = [math.sin(i / 10) * 100 + math.sqrt(i) for i in range(5000)]
(round(statistics.mean(values), 3), round(statistics.pstdev(values), 3), round(max(values) - min(values), 3))
""",
    "regex_json": """
import re, json
text = " ".join(f"order #{i} costs ${i * 3}.99 on 2024-0{i % 9 + 1}-1{i % 10}" for i in range(1500))
orders = [{"id": int(m.group(1)), "price": float(m.group(2))} for m in re.finditer(r"#(\\d+) costs \\$(\\d+\\.\\d+)", text)]
dates = re.findall(r"\\d{4}-\\d{2}-\\d{2}", text)
blob = json.dumps({"orders": orders, "dates": dates})
len(json.loads(blob)["orders"])
""",
    "datetime_work": """
import datetime
start = datetime.date(2024, 1, 1)
days = [start + datetime.timedelta(days=i) for i in range(2000)]
weekends = sum(1 for d in days if d.weekday() >= 5)
by_month = {}
for d in days:
    by_month.setdefault((d.year, d.month), []).append(d.isoformat())
(weekends, len(by_month))
""",
    "generators": """
def chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]
def running(it):
    total = 0
    for x in it:
        total += x
        yield total
data = list(range(20000))
sums = [sum(c) for c in chunks(data, 7)]
last = None
for last in running(sums):
    pass
last
""",
    "prime_sieve": """
def sieve(n):
    is_p = [True] * (n + 1)
    is_p[0] = is_p[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = False
    return [i for i, p in enumerate(is_p) if p]
len(sieve(30000))
""",
    "collections_itertools": """
import collections, itertools
pairs = list(itertools.combinations(range(60), 2))
counter = collections.Counter((a + b) % 17 for a, b in pairs)
dq = collections.deque(maxlen=50)
for p in pairs:
    dq.append(p)
grouped = {k: len(list(g)) for k, g in itertools.groupby(sorted(a % 7 for a, _ in pairs))}
(counter.most_common(1)[0][1], len(dq), grouped[0])
""",
    "string_formatting_report": """
rows = [(f"product-{i}", i * 1.5, i % 7) for i in range(2000)]
lines = ["{:<12} {:>8.2f} {:>3d}".format(name, price, q) for name, price, q in rows]
table = "\\n".join(lines)
print(table[:60])
len(table)
""",
}
