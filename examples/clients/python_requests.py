#!/usr/bin/env python3
"""A real Python client, unchanged: requests with urllib3's Retry, as a Python SDK sets it up.

    pacing-lab record SCENARIO --out DIR -- python3 examples/clients/python_requests.py URL [URL...]

It knows nothing of the lab: requests reads HTTP_PROXY, which `record` sets to its proxy, so the
URLs are the real ones (http://kgf.example.org/sparql). Each URL is fetched in turn; 429 and 503
are retried up to 3 times, waiting as Retry-After says (respect_retry_after_header) or backing
off. Prints one line per URL: the final status. Exit 1 when any URL did not end in 2xx.
"""

import sys

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry


def main():
    retry = Retry(total=3, status_forcelist=[429, 503], backoff_factor=0.1,
                  respect_retry_after_header=True, allowed_methods=None)
    session = requests.Session()
    session.mount("http://", HTTPAdapter(max_retries=retry))
    failed = 0
    for url in sys.argv[1:]:
        try:
            status = session.get(url, timeout=30).status_code
        except requests.exceptions.RetryError:
            status = "retries exhausted"
        print(url, status)
        failed += status not in range(200, 300)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
