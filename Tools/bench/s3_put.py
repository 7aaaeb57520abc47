#!/usr/bin/env python3
"""Put a file as a public-read object into an S3-compatible server (for the remote bench's moto run).

    python3 Tools/bench/s3_put.py http://127.0.0.1:5055 bench site.webarc /path/to/site.webarc

Creates the bucket, uploads the file (boto3, signed with dummy credentials, which moto accepts)
with `x-amz-acl: public-read`, so that plain unsigned GETs with `Range` work, the way a public
bucket behind a CDN is read. Prints the object's URL. Needs boto3 (moto[server] installs it).
"""

import sys

import boto3


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: s3_put.py ENDPOINT BUCKET KEY FILE")
    endpoint, bucket, key, path = sys.argv[1:]
    s3 = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="bench", aws_secret_access_key="bench")
    s3.create_bucket(Bucket=bucket)
    s3.upload_file(path, bucket, key, ExtraArgs={"ACL": "public-read"})
    print(f"{endpoint}/{bucket}/{key}")


if __name__ == "__main__":
    main()
