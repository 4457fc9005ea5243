"""Peak memory and time of one child process, measured from a small launcher process.

The peak RSS a child reports (``ru_maxrss``) includes the image it was forked from, so a benchmark
(hundreds of MB) must not be that parent: it runs ``python -c LAUNCHER ARGV...``, which starts
``ARGV`` and prints one JSON object: ``seconds`` (wall), ``max_rss_kb``, ``exit`` and ``stderr``.
"""

LAUNCHER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = p.stderr.read()
_, status, ru = os.wait4(p.pid, 0)
print(json.dumps({"seconds": time.perf_counter() - t, "max_rss_kb": ru.ru_maxrss,
                  "exit": os.waitstatus_to_exitcode(status), "stderr": err.decode(errors="replace")}))
"""
