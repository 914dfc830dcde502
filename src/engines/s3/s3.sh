# shellcheck shell=bash
# shellcheck disable=SC2034 # BS_REP_CLEANUP is set here for the runtime (runtime.sh) to read
# Part of a compiled benchspec.sh that runs S3 cases (src/engines/s3/shell.ts writes it). This header, up to
# the first blank line, is not copied into the script.

export AWS_PAGER=""

bs_aws() { aws --endpoint-url="$BS_S3_URL" --region="$BS_S3_REGION" s3api "$@"; }

# bs_s3_bucket_setup TARGET: makes sure the bucket exists, and remembers a bucket this run creates.
bs_s3_bucket_setup() {
  local region config=()
  if bs_aws head-bucket --bucket="$BS_S3_BUCKET" >/dev/null 2>&1; then return 0; fi
  bs_log "target $1: creating bucket $BS_S3_BUCKET at $BS_S3_URL"
  if [[ $BS_S3_REGION != us-east-1 ]]; then
    bs_json region "$BS_S3_REGION"
    config=(--create-bucket-configuration="{\"LocationConstraint\":$region}")
  fi
  bs_aws create-bucket --bucket="$BS_S3_BUCKET" "${config[@]}" >/dev/null ||
    bs_die "target $1: bucket $BS_S3_BUCKET does not exist at $BS_S3_URL and cannot be created (credentials?)"
  : >"$BS_STATE/bucket-created.$1"
}

# bs_s3_bucket_release TARGET: deletes the bucket if this run created it and it is empty again.
bs_s3_bucket_release() {
  if [[ -e $BS_STATE/bucket-created.$1 ]]; then
    bs_aws delete-bucket --bucket="$BS_S3_BUCKET" >/dev/null 2>&1 ||
      bs_log "target $1: bucket $BS_S3_BUCKET is not empty, so it stays"
  fi
}

# bs_s3 OP SIZE OBJECTS CONCURRENCY PART-SIZE QUEUE DURATION-µs DATA: one repetition of an S3 case.
bs_s3() {
  local op=$1 size=$2 objects=$3 conc=$4 duration=$7 data=$8 i ok=true error=''
  BS_S3_PART=$5 BS_S3_QUEUE=$6
  BS_S3_PREFIX=benchspec/$BS_SPEC/$BS_RUN_ID/$BS_CASE/$BS_REPNAME
  BS_REP_CLEANUP=bs_s3_cleanup
  bs_s3_curl_setup
  mkdir -- "$BS_REPDIR/data"
  for ((i = 0; i < objects; i++)); do bs_s3_payload "$i" "$size" "$data"; done
  if [[ $op != put ]]; then
    bs_pool "$conc" bs_s3_worker put "$objects" "$conc" "$size" 0
    bs_ops_span
    bs_pool_stats "$conc"
    if ((BS_FAILED_OPS > 0 || BS_OPS < objects)); then bs_fail "uploading the objects before $op failed: $BS_ERROR"; fi
    rm -f -- "$BS_REPDIR"/ops.* "$BS_REPDIR"/error.*
  fi
  bs_pool "$conc" bs_s3_worker "$op" "$objects" "$conc" "$size" "$duration"
  bs_ops_span
  bs_pool_stats "$conc"
  if ((BS_FAILED_OPS > 0)); then
    ok=false error="$BS_FAILED_OPS of $((BS_OPS + BS_FAILED_OPS)) requests failed; $BS_ERROR"
  elif [[ -n $BS_ERROR ]]; then
    ok=false error=$BS_ERROR
  fi
  bs_emit "$ok" "$error" "$BS_T0" "$BS_T1" "$BS_BYTES" "$BS_OPS"
}

# The credentials and URLs curl signs its requests with (SigV4, path-style URLs). The credentials are the
# AWS variables, else the aws CLI's profile (read once, untimed); a session token goes in its header.
bs_s3_curl_setup() {
  local key=${AWS_ACCESS_KEY_ID:-} secret=${AWS_SECRET_ACCESS_KEY:-} token=${AWS_SESSION_TOKEN:-}
  if [[ -z $key || -z $secret ]]; then
    key=$(aws configure get aws_access_key_id 2>/dev/null) || key=
    secret=$(aws configure get aws_secret_access_key 2>/dev/null) || secret=
    token=$(aws configure get aws_session_token 2>/dev/null) || token=
  fi
  if [[ -z $key || -z $secret ]]; then
    bs_fail "no S3 credentials for curl: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or an aws profile with keys)"
  fi
  BS_CURL_COMMON=("user=$key:$secret" "aws-sigv4=aws:amz:$BS_S3_REGION:s3" globoff)
  if [[ -n $token ]]; then BS_CURL_COMMON+=("header=x-amz-security-token: $token"); fi
  BS_S3_BUCKET_URL=${BS_S3_URL%/}/$BS_S3_BUCKET
  bs_s3_urlencode BS_S3_PREFIX_URL "$BS_S3_PREFIX"
}

# bs_s3_urlencode VAR TEXT: TEXT percent-encoded as S3 signs it (/ kept).
bs_s3_urlencode() {
  local LC_ALL=C s=$2 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~/-]) out+=$c ;;
      *)
        printf -v c '%%%02X' "'$c"
        out+=$c
        ;;
    esac
  done
  printf -v "$1" '%s' "$out"
}

# bs_s3_payload INDEX SIZE DATA: the object's payload file (split into part files for multipart uploads).
bs_s3_payload() {
  local f=$BS_REPDIR/data/obj-$1
  bs_data "$f" "$2" "$3"
  if ((BS_S3_PART > 0)); then
    split -b "$BS_S3_PART" -a 5 -d -- "$f" "$f.part."
    rm -f -- "$f"
  fi
}

# bs_s3_worker WORKER OP OBJECTS CONCURRENCY SIZE DURATION-µs: objects WORKER, WORKER + CONCURRENCY, …, all
# in one curl process (bs_curl_run); when DURATION is set, round and round until it has passed, each round
# one curl process over as many passes as the time left is expected to take (1, then at most twice the last).
# Multipart uploads go through the aws CLI, one process per request (bs_s3_worker_cli).
bs_s3_worker() {
  local w=$1 op=$2 objects=$3 conc=$4 size=$5 duration=$6 i now start deadline passes=1 pass per left
  if [[ $op == put ]] && ((BS_S3_PART > 0)); then
    bs_s3_worker_cli "$@"
    return
  fi
  if ((w >= objects)); then return 0; fi
  bs_now now
  deadline=$((now + duration))
  while :; do
    bs_curl_begin "$w"
    for ((pass = 0; pass < passes; pass++)); do
      for ((i = w; i < objects; i += conc)); do bs_s3_transfer "$w" "$op" "$i" "$size"; done
    done
    bs_now start
    bs_curl_run "$w"
    if ((duration == 0)); then break; fi
    bs_now now
    if ((now >= deadline)); then break; fi
    per=$(((now - start) / passes + 1))
    left=$(((deadline - now) / per + 1))
    passes=$((left < 2 * passes ? left : 2 * passes))
  done
}

# bs_s3_transfer WORKER OP INDEX SIZE: one request of the worker's curl list.
bs_s3_transfer() {
  local w=$1 key=$BS_S3_PREFIX/obj-$3 url=$BS_S3_BUCKET_URL/$BS_S3_PREFIX_URL/obj-$3
  case $2 in
    put)
      printf '%s\n' "$key" >>"$BS_REPDIR/keys.$w"
      bs_curl_add "$w" "$4" "url=$url" "upload-file=$BS_REPDIR/data/obj-$3" output=/dev/null
      ;;
    get) bs_curl_add "$w" "$4" "url=$url" output=/dev/null ;;
    delete) bs_curl_add "$w" 0 "url=$url" request=DELETE output=/dev/null ;;
    stat) bs_curl_add "$w" 0 "url=$url" head output=/dev/null ;;
    list)
      # The query's parameters in sorted order, as SigV4 wants them (curl 7.88 does not sort them).
      bs_curl_add "$w" 0 "url=$BS_S3_BUCKET_URL?list-type=2&max-keys=1000&prefix=${BS_S3_PREFIX_URL//\//%2F}%2F" \
        output=/dev/null
      ;;
    *) bs_fail "unknown S3 operation $2" ;;
  esac
}

# bs_s3_worker_cli WORKER put OBJECTS CONCURRENCY SIZE DURATION-µs: multipart uploads through the aws CLI (its
# Create/UploadPart/Complete requests are one process each, so small parts include the CLI's start-up).
bs_s3_worker_cli() {
  local w=$1 op=$2 objects=$3 conc=$4 size=$5 duration=$6 i=$1 now deadline key
  bs_now now
  deadline=$((now + duration))
  while ((w < objects)); do
    if ((i >= objects)); then
      if ((duration == 0)); then break; fi
      i=$w
    fi
    if ((duration > 0)); then
      bs_now now
      if ((now >= deadline)); then break; fi
    fi
    key=$BS_S3_PREFIX/obj-$i
    printf '%s\n' "$key" >>"$BS_REPDIR/keys.$w"
    bs_op "$w" "$size" /dev/null bs_s3_multipart "$key" "$BS_REPDIR/data/obj-$i"
    i=$((i + conc))
  done
}

# bs_s3_multipart KEY FILE: CreateMultipartUpload, QUEUE UploadPart requests in flight, CompleteMultipartUpload.
bs_s3_multipart() {
  local key=$1 file=$2 id n=0 i running=0 failed=0 p etag e parts=''
  id=$(bs_aws create-multipart-upload --bucket="$BS_S3_BUCKET" --key="$key" --query=UploadId --output=text) || return 1
  if [[ -z $id ]]; then return 1; fi
  # Recorded at once (one short append, whole even with many workers): a Ctrl-C from here on leaves an
  # upload that bs_s3_cleanup must abort.
  printf '%s\t%s\n' "$key" "$id" >>"$BS_REPDIR/uploads.started"
  for p in "$file".part.*; do
    n=$((n + 1))
    bs_aws upload-part --bucket="$BS_S3_BUCKET" --key="$key" --upload-id="$id" --part-number="$n" --body="$p" \
      --query=ETag --output=text >"$file.etag.$n" &
    running=$((running + 1))
    if ((running >= BS_S3_QUEUE)); then
      wait -n || failed=1
      running=$((running - 1))
    fi
  done
  while ((running > 0)); do
    wait -n || failed=1
    running=$((running - 1))
  done
  if ((failed == 0)); then
    for ((i = 1; i <= n; i++)); do
      etag=
      IFS= read -r etag <"$file.etag.$i" || true
      if [[ -z $etag ]]; then failed=1; fi
      bs_json e "$etag"
      parts+=${parts:+,}"{\"ETag\":$e,\"PartNumber\":$i}"
    done
  fi
  if ((failed != 0)); then
    bs_aws abort-multipart-upload --bucket="$BS_S3_BUCKET" --key="$key" --upload-id="$id" >/dev/null 2>&1 &&
      printf '%s\t%s\n' "$key" "$id" >>"$BS_REPDIR/uploads.ended"
    echo "a part upload of $key failed" >&2
    return 1
  fi
  printf '{"Parts":[%s]}' "$parts" >"$file.parts.json"
  bs_aws complete-multipart-upload --bucket="$BS_S3_BUCKET" --key="$key" --upload-id="$id" \
    --multipart-upload="file://$file.parts.json" || return 1
  printf '%s\t%s\n' "$key" "$id" >>"$BS_REPDIR/uploads.ended"
}

# Deletes exactly the keys this repetition wrote (DeleteObjects, 1000 at a time) and aborts its incomplete
# multipart uploads. Runs when the repetition ends, also after a failure or Ctrl-C.
bs_s3_cleanup() {
  local keys=$BS_REPDIR/keys.all key e n=0 body='' line upload
  cat -- "$BS_REPDIR"/keys.* 2>/dev/null | sort -u >"$keys"
  while IFS= read -r key; do
    bs_json e "$key"
    body+=${body:+,}"{\"Key\":$e}"
    n=$((n + 1))
    if ((n == 1000)); then
      bs_s3_delete_batch "$body"
      body='' n=0
    fi
  done <"$keys"
  if ((n > 0)); then bs_s3_delete_batch "$body"; fi
  if ((BS_S3_PART > 0)); then
    # The uploads this repetition started and did not complete, as recorded; then, listed, those a Ctrl-C
    # cut off before their id was recorded. The listing has no --prefix: MinIO answers a prefixed
    # ListMultipartUploads only with uploads whose key equals the prefix. Only keys under ours are aborted.
    touch -- "$BS_REPDIR/uploads.started" "$BS_REPDIR/uploads.ended"
    awk 'NR == FNR { ended[$0] = 1; next } !($0 in ended)' "$BS_REPDIR/uploads.ended" \
      "$BS_REPDIR/uploads.started" >"$BS_REPDIR/uploads"
    bs_s3_abort_uploads
    bs_aws list-multipart-uploads --bucket="$BS_S3_BUCKET" \
      --query='Uploads[].[Key,UploadId]' --output=text 2>/dev/null >"$BS_REPDIR/uploads" || true
    bs_s3_abort_uploads
  fi
}

# Aborts the uploads listed in $BS_REPDIR/uploads (KEY<tab>UPLOAD-ID) whose keys are under this repetition's prefix.
bs_s3_abort_uploads() {
  local key upload
  while IFS=$'\t' read -r key upload; do
    if [[ -z $upload || $key == None || $key != "$BS_S3_PREFIX"/* ]]; then continue; fi
    bs_aws abort-multipart-upload --bucket="$BS_S3_BUCKET" --key="$key" --upload-id="$upload" >/dev/null 2>&1 ||
      bs_log "could not abort the multipart upload of $key"
  done <"$BS_REPDIR/uploads"
}

bs_s3_delete_batch() {
  printf '{"Objects":[%s],"Quiet":true}' "$1" >"$BS_REPDIR/delete.json"
  bs_aws delete-objects --bucket="$BS_S3_BUCKET" --delete="file://$BS_REPDIR/delete.json" >/dev/null ||
    bs_log "could not delete some objects under $BS_S3_PREFIX"
}
