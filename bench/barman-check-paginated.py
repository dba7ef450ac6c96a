"""Runs Debian's barman-cloud-check-wal-archive (Barman 3.4) with the upstream paginated S3 listing.

Barman 3.4's S3CloudInterface.list_bucket makes one ListObjectsV2 call and ignores the continuation
token (EnterpriseDB/barman#780), so on a large archive it sees the first 1,000 keys only. Later
releases list through boto3's list_objects_v2 paginator; this wrapper swaps that listing in, counts
the keys it yields (printed on stderr as `listed <n>` so the bench can check that the whole archive
was read), then calls the client's own main(). Nothing else of Barman is changed.
"""
import atexit
import sys

from barman.cloud_providers import aws_s3
from barman.clients import cloud_check_wal_archive

listed = 0


def list_bucket(self, prefix="", delimiter="/"):
    global listed
    if prefix.startswith(delimiter):
        prefix = prefix.lstrip(delimiter)
    paginator = self.s3.meta.client.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=self.bucket_name, Prefix=prefix, Delimiter=delimiter):
        for item in page.get("CommonPrefixes", []):
            yield item.get("Prefix")
        for item in page.get("Contents", []):
            listed += 1
            yield item.get("Key")


aws_s3.S3CloudInterface.list_bucket = list_bucket
atexit.register(lambda: sys.stderr.write("listed %d\n" % listed))
cloud_check_wal_archive.main()
