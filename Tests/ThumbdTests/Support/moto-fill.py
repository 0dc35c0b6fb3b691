"""Bootstraps a moto server that enforces authentication, and fills its buckets.

Run by S3TestServer against a server started with INITIAL_NO_AUTH_ACTION_COUNT=3: the first three
requests (make a user, its access key, its policy) are the only ones moto lets through unsigned.
Reads a JSON spec on stdin:
  {"endpoint": "http://127.0.0.1:PORT",
   "objects": [{"bucket": "b", "key": "k", "path": "/file", "versioned": false}, ...]}
and writes JSON: {"access_key_id", "secret_access_key", "versions": {"bucket/key": [id, ...]}}.
"""
import json
import sys

import boto3

spec = json.load(sys.stdin)
endpoint = spec["endpoint"]
anonymous = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bootstrap",
                 aws_secret_access_key="bootstrap")
iam = boto3.client("iam", **anonymous)
iam.create_user(UserName="thumbd")
key = iam.create_access_key(UserName="thumbd")["AccessKey"]
iam.put_user_policy(UserName="thumbd", PolicyName="everything", PolicyDocument=json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": ["s3:*", "sts:*", "iam:*"], "Resource": "*"}],
}))

s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key["AccessKeyId"],
                  aws_secret_access_key=key["SecretAccessKey"])
made = set()
versions = {}
for item in spec["objects"]:
    bucket = item["bucket"]
    if bucket not in made:
        s3.create_bucket(Bucket=bucket)
        if item.get("versioned"):
            s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
        made.add(bucket)
    with open(item["path"], "rb") as body:
        answer = s3.put_object(Bucket=bucket, Key=item["key"], Body=body.read(), ContentType="image/jpeg")
    if "VersionId" in answer:
        versions.setdefault(bucket + "/" + item["key"], []).append(answer["VersionId"])

# Temporary credentials, with a session token, for a role that may read every bucket.
signed = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key["AccessKeyId"],
              aws_secret_access_key=key["SecretAccessKey"])
iam = boto3.client("iam", **signed)
role = iam.create_role(RoleName="reader", AssumeRolePolicyDocument=json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
}))["Role"]
iam.put_role_policy(RoleName="reader", PolicyName="read", PolicyDocument=json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "s3:GetObjectVersion", "s3:ListBucket"],
                   "Resource": "*"}],
}))
temporary = boto3.client("sts", **signed).assume_role(RoleArn=role["Arn"], RoleSessionName="thumbd")["Credentials"]

json.dump({"access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"], "versions": versions,
           "temporary": {"access_key_id": temporary["AccessKeyId"], "secret_access_key": temporary["SecretAccessKey"],
                         "session_token": temporary["SessionToken"]}},
          sys.stdout)
