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

# bs_s3 OP SIZE OBJECTS CONCURRENCY PART-SIZE QUEUE DURATION-µs DATA [ROUNDS THRESHOLD]: one repetition of
# an S3 case; with ROUNDS (the concurrencies of an autotune, in order), one pool per round until the gain
# falls below THRESHOLD percent. Op mixed takes its kinds' counts per pass from BS_S3_MIX (bs_s3_mix).
bs_s3() {
  local op=$1 size=$2 objects=$3 conc=$4 duration=$7 data=$8 tune=${9:-} threshold=${10:-} i ok=true error=''
  BS_S3_PART=$5 BS_S3_QUEUE=$6 BS_S3_OBJECTS=$3 BS_S3_PUTS=0 BS_S3_DELETES=0
  BS_S3_PREFIX=benchspec/$BS_SPEC/$BS_RUN_ID/$BS_CASE/$BS_REPNAME
  BS_REP_CLEANUP=bs_s3_cleanup
  bs_s3_curl_setup
  # shellcheck disable=SC2086 # BS_S3_MIX is four counts
  if [[ $op == mixed ]]; then bs_s3_mix $BS_S3_MIX "$objects"; fi
  mkdir -- "$BS_REPDIR/data"
  for ((i = 0; i < objects; i++)); do bs_s3_payload "obj-$i" "$size" "$data"; done
  for ((i = 0; i < BS_S3_PUTS; i++)); do bs_s3_payload "m-$i" "$size" "$data"; done
  for ((i = 0; i < BS_S3_DELETES; i++)); do bs_s3_payload "d-$i" "$size" "$data"; done
  if [[ $op != put ]]; then
    # Untimed: on several hosts, the repetition starts together at the timed pool (hosts.sh).
    BS_UNTIMED=1 bs_s3_pool upload "$((objects + BS_S3_DELETES))" "$conc" "$size" 0
    if ((BS_FAILED_OPS > 0 || BS_OPS < objects + BS_S3_DELETES)); then
      bs_fail "uploading the objects before $op failed: $BS_ERROR"
    fi
    rm -f -- "$BS_REPDIR"/ops.* "$BS_REPDIR"/error.*
  fi
  if [[ -n $tune ]]; then
    bs_autotune concurrency "$tune" "$threshold" bs_s3_round
  else
    bs_s3_pool "$op" "$objects" "$conc" "$size" "$duration"
  fi
  bs_ops_series
  if ((BS_FAILED_OPS > 0)); then
    ok=false error="$BS_FAILED_OPS of $((BS_OPS + BS_FAILED_OPS)) requests failed; $BS_ERROR"
  elif [[ -n $BS_ERROR ]]; then
    ok=false error=$BS_ERROR
  fi
  bs_emit "$ok" "$error" "$BS_T0" "$BS_T1" "$BS_BYTES" "$BS_OPS"
}

# bs_s3_round ROUND CONCURRENCY: one autotune round of the calling bs_s3's case (its locals); a put's later
# rounds upload new payloads (untimed), as benchspec run's passes do.
bs_s3_round() {
  local i
  if (($1 > 0)) && [[ $op == put ]]; then
    rm -rf -- "$BS_REPDIR/data"
    mkdir -- "$BS_REPDIR/data"
    for ((i = 0; i < objects; i++)); do bs_s3_payload "obj-$i" "$size" "$data"; done
  fi
  bs_s3_pool "$op" "$objects" "$2" "$size" "$duration"
}

# The API call each kind of a mixed load makes: the keys of the row's byOp, as benchspec run names them.
declare -A BS_S3_CALL=([get]=GetObject [stat]=HeadObject [put]=PutObject [delete]=DeleteObject)

# bs_s3_mix GETS STATS PUTS DELETES TOTAL: a mixed pass of TOTAL ops, the kinds interleaved by smooth
# weighted round robin exactly as benchspec run's (src/engines/s3/sdk.ts, mixSequence): op n is a
# BS_S3_KIND[n], the BS_S3_NTH[n]-th of its kind. Sets BS_S3_PUTS and BS_S3_DELETES, the m- and d- objects.
bs_s3_mix() {
  local -a counts=("$1" "$2" "$3" "$4") current=(0 0 0 0) next=(0 0 0 0) kinds=(get stat put delete)
  local total=$5 n k pick
  BS_S3_KIND=() BS_S3_NTH=()
  for ((n = 0; n < total; n++)); do
    pick=0
    for ((k = 0; k < 4; k++)); do
      current[k]=$((current[k] + counts[k]))
      if ((current[k] > current[pick])); then pick=$k; fi
    done
    current[pick]=$((current[pick] - total))
    BS_S3_KIND[n]=${kinds[pick]}
    BS_S3_NTH[n]=${next[pick]}
    next[pick]=$((next[pick] + 1))
  done
  BS_S3_PUTS=$3 BS_S3_DELETES=$4
}

# The credentials and URLs curl signs its requests with (SigV4, path-style URLs). The credentials are the
# AWS variables, else the aws CLI's profile (read once, untimed); a session token goes in its header. The
# payload is declared unsigned (x-amz-content-sha256), as benchspec run's requests do: S3 requires the header,
# and without it curl 7.88 signs a POST body's hash the server does not expect (it assumes an empty body).
bs_s3_curl_setup() {
  local key=${AWS_ACCESS_KEY_ID:-} secret=${AWS_SECRET_ACCESS_KEY:-} token=${AWS_SESSION_TOKEN:-} version
  if [[ -z $key || -z $secret ]]; then
    key=$(aws configure get aws_access_key_id 2>/dev/null) || key=
    secret=$(aws configure get aws_secret_access_key 2>/dev/null) || secret=
    token=$(aws configure get aws_session_token 2>/dev/null) || token=
  fi
  if [[ -z $key || -z $secret ]]; then
    bs_fail "no S3 credentials for curl: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or an aws profile with keys)"
  fi
  if ((BS_S3_PART > 0)); then
    # The part uploads' ETags come from curl's %header{etag} (curl 7.84).
    read -r _ version _ < <(curl --version)
    if [[ ! $version =~ ^([0-9]+)\.([0-9]+) ]] || ((BASH_REMATCH[1] * 1000 + BASH_REMATCH[2] < 7084)); then
      bs_fail "multipart uploads need curl 7.84 or newer (this is curl $version)"
    fi
  fi
  # The credentials go into the transfer lists as placeholders; bs_curl_config puts them in for curl.
  local user header
  bs_curl_secret user user "$key:$secret"
  BS_CURL_COMMON=("$user" "aws-sigv4=aws:amz:$BS_S3_REGION:s3" globoff
    "header=x-amz-content-sha256: UNSIGNED-PAYLOAD")
  if [[ -n $token ]]; then
    bs_curl_secret header header "x-amz-security-token: $token"
    BS_CURL_COMMON+=("$header")
  fi
  BS_S3_BUCKET_URL=${BS_S3_URL%/}/$BS_S3_BUCKET
  BS_CURL_WARMUP=("url=$BS_S3_BUCKET_URL" head)
  bs_urlencode BS_S3_PREFIX_URL "$BS_S3_PREFIX" /
}

# bs_s3_payload NAME SIZE DATA: the object's payload file (split into part files for multipart uploads).
bs_s3_payload() {
  local f=$BS_REPDIR/data/$1
  bs_data "$f" "$2" "$3"
  if ((BS_S3_PART > 0)); then
    split -b "$BS_S3_PART" -a 5 -d -- "$f" "$f.part."
    rm -f -- "$f"
  fi
}

# bs_s3_pool OP OBJECTS CONCURRENCY SIZE DURATION-µs: the repetition's requests, timed; sets BS_T0, BS_T1
# and the pool's totals (bs_pool_stats). Single requests go through one shared queue (bs_s3_queue);
# multipart uploads through CONCURRENCY workers, each upload a chain of requests (bs_s3_worker_multipart).
bs_s3_pool() {
  if [[ $1 == put || $1 == upload ]] && ((BS_S3_PART > 0)); then
    bs_curl_pool "$3" bs_s3_worker_multipart "$@"
    bs_ops_end
    bs_pool_stats "$3" worker
  else
    bs_curl_queues "$3"
    bs_curl_pool "$BS_CURL_QUEUES" bs_s3_queue "$@"
    bs_ops_end
    bs_pool_stats "$BS_CURL_QUEUES"
  fi
}

# bs_s3_queue QUEUE OP OBJECTS CONCURRENCY SIZE DURATION-µs: objects QUEUE, QUEUE + BS_CURL_QUEUES, … in one
# curl process that keeps its share of CONCURRENCY in flight (bs_curl_run); when DURATION is set, round and
# round until it has passed, each round one curl process over as many passes as the time left is expected
# to take (1, then at most twice the last).
bs_s3_queue() {
  local q=$1 op=$2 objects=$3 conc=$4 size=$5 duration=$6 i now start deadline=0 passes=1 pass per left slots
  if ((q >= objects)); then return 0; fi
  bs_curl_slots slots "$conc" "$q"
  while :; do
    bs_curl_begin "$q" "$slots"
    for ((pass = 0; pass < passes; pass++)); do
      for ((i = q; i < objects; i += BS_CURL_QUEUES)); do bs_s3_transfer "$q" "$op" "$i" "$size"; done
    done
    bs_now start
    bs_curl_run
    if ((duration == 0)); then break; fi
    bs_now now
    if ((deadline == 0)); then
      # The first round waited at the start barrier: the time runs from its release.
      read -r start <"$BS_BARRIER/t0"
      deadline=$((start + duration))
    fi
    if ((now >= deadline)); then break; fi
    per=$(((now - start) / passes + 1))
    left=$(((deadline - now) / per + 1))
    passes=$((left < 2 * passes ? left : 2 * passes))
  done
}

# bs_s3_transfer QUEUE OP INDEX SIZE: one request of the queue's curl list. Op upload is the untimed
# upload before a read: the objects obj-0 … and, past BS_S3_OBJECTS, those a mixed load deletes (d-0 …).
# Op mixed is the INDEX-th of bs_s3_mix's pass: gets and stats read obj-N, puts write m-N, deletes remove
# d-N; its -w lines name the call (BS_CURL_OP), for the row's byOp.
bs_s3_transfer() {
  local w=$1 op=$2 name=obj-$3 n BS_CURL_OP=
  case $op in
    upload)
      op=put
      if (($3 >= BS_S3_OBJECTS)); then name=d-$(($3 - BS_S3_OBJECTS)); fi
      ;;
    mixed)
      op=${BS_S3_KIND[$3]} n=${BS_S3_NTH[$3]}
      BS_CURL_OP=${BS_S3_CALL[$op]}
      case $op in
        put) name=m-$n ;;
        delete) name=d-$n ;;
        *) name=obj-$((n % BS_S3_OBJECTS)) ;;
      esac
      ;;
  esac
  local key=$BS_S3_PREFIX/$name url=$BS_S3_BUCKET_URL/$BS_S3_PREFIX_URL/$name
  case $op in
    put)
      printf '%s\n' "$key" >>"$BS_REPDIR/keys.$w"
      bs_curl_add "$4" "url=$url" "upload-file=$BS_REPDIR/data/$name" output=/dev/null
      ;;
    get) bs_curl_add "$4" "url=$url" output=/dev/null ;;
    delete) bs_curl_add 0 "url=$url" request=DELETE output=/dev/null ;;
    stat) bs_curl_add 0 "url=$url" head output=/dev/null ;;
    list)
      # The query's parameters in sorted order, as SigV4 wants them (curl 7.88 does not sort them).
      bs_curl_add 0 "url=$BS_S3_BUCKET_URL?list-type=2&max-keys=1000&prefix=${BS_S3_PREFIX_URL//\//%2F}%2F" \
        output=/dev/null
      ;;
    *) bs_fail "unknown S3 operation $op" ;;
  esac
}

# bs_s3_worker_multipart WORKER put OBJECTS CONCURRENCY SIZE DURATION-µs: multipart uploads of objects
# WORKER, WORKER + CONCURRENCY, … (round and round until DURATION has passed, when it is set), one op each.
bs_s3_worker_multipart() {
  local w=$1 objects=$3 conc=$4 size=$5 duration=$6 i=$1 now start deadline=0
  while ((w < objects)); do
    if ((i >= objects)); then
      if ((duration == 0)); then break; fi
      i=$w
    fi
    bs_s3_multipart "$w" "$i" "$size"
    i=$((i + conc))
    if ((duration > 0)); then
      if ((deadline == 0)); then
        # The first upload waited at the start barrier: the time runs from its release.
        read -r start <"$BS_BARRIER/t0"
        deadline=$((start + duration))
      fi
      bs_now now
      if ((now >= deadline)); then break; fi
    fi
  done
}

# bs_s3_multipart WORKER INDEX SIZE: one multipart upload of object INDEX, recorded as one op in ops.WORKER
# from the start of its CreateMultipartUpload to the end of its CompleteMultipartUpload. Three curl
# processes: each request needs what the one before answered (the upload id, the parts' ETags). The parts go
# QUEUE at a time (`parallel`). An upload that fails after its creation is aborted (untimed). No awk or other
# helper process between the requests: its start-up would be in the op.
bs_s3_multipart() {
  local w=$1 size=$3 key=$BS_S3_PREFIX/obj-$2 url=$BS_S3_BUCKET_URL/$BS_S3_PREFIX_URL/obj-$2
  local file=$BS_REPDIR/data/obj-$2 mp=$BS_REPDIR/mp.$1 id='' qid p n=0 i start end error='' answer
  local code tt ex rest part xml etags=()
  printf '%s\n' "$key" >>"$BS_REPDIR/keys.$w"
  # CreateMultipartUpload: the upload id is in the answer.
  bs_curl_begin "$w"
  bs_curl_add 0 "url=$url?uploads=" request=POST "output=$mp.answer"
  : >"$mp.answer"
  bs_curl_exec
  code='' tt='' ex=''
  read -r code tt ex _ <"$BS_CURL_LIST.out" || true
  if [[ ! $tt =~ ^[0-9]+[.][0-9]{6}$ ]]; then tt=0.000000; fi
  end=$BS_CURL_END
  start=$((end - 10#${tt//./}))
  answer=
  read -r -d '' answer <"$mp.answer" || true
  if [[ $answer =~ \<UploadId\>([^<]+)\</UploadId\> ]]; then id=${BASH_REMATCH[1]}; fi
  if [[ $ex != 0 || $code != 2* || -z $id ]]; then
    bs_s3_multipart_failed "$w" "$start" "$end" "CreateMultipartUpload of $key" "$BS_CURL_LIST" "$mp.answer"
    return 0
  fi
  # Recorded at once (one short append, whole even with many workers): a Ctrl-C from here on leaves an
  # upload that bs_s3_cleanup must abort.
  printf '%s\t%s\n' "$key" "$id" >>"$BS_REPDIR/uploads.started"
  bs_urlencode qid "$id"
  # UploadPart, QUEUE at a time; each part's ETag from its answer's header. The -w lines come in the order
  # the parts finish, so each names its part by its URL; the ETag is followed by curl's message, if any.
  bs_curl_begin "$w" "$BS_S3_QUEUE"
  for p in "$file".part.*; do
    n=$((n + 1))
    bs_curl_add 0 "url=$url?partNumber=$n&uploadId=$qid" "upload-file=$p" output=/dev/null \
      $'write-out=%{http_code} %{time_total} %{exitcode} %{url_effective} %header{etag} %{errormsg}\n'
  done
  bs_curl_exec
  while read -r code _ ex part rest; do
    if [[ $part =~ [?\&]partNumber=([0-9]+) ]]; then part=$((10#${BASH_REMATCH[1]})); else part=0; fi
    if [[ $ex == 0 && $code == 2* && -n $rest ]]; then
      etags[part]=$rest
    elif [[ -z $error ]]; then
      if [[ $ex != 0 ]]; then error="curl: $rest (exit $ex)"; else error="HTTP status $code"; fi
      error+=" for part $part"
    fi
  done <"$BS_CURL_LIST.out"
  for ((i = 1; i <= n; i++)); do
    if [[ -n $error || -n ${etags[i]:-} ]]; then continue; fi
    rest=
    read -r rest <"$BS_CURL_LIST.err" || true
    error="curl stopped before all the parts (exit $BS_CURL_RC)${rest:+: $rest}"
  done
  if [[ -n $error ]]; then
    bs_now end
    bs_s3_multipart_failed "$w" "$start" "$end" "UploadPart of $key: $error"
    bs_s3_abort "$w" "$key" "$url" "$id" "$qid"
    return 0
  fi
  xml='<CompleteMultipartUpload>'
  for ((i = 1; i <= n; i++)); do xml+="<Part><PartNumber>$i</PartNumber><ETag>${etags[i]}</ETag></Part>"; done
  printf '%s</CompleteMultipartUpload>\n' "$xml" >"$mp.xml"
  # CompleteMultipartUpload. S3 may answer 200 with an error in the body.
  bs_curl_begin "$w"
  bs_curl_add 0 "url=$url?uploadId=$qid" "data-binary=@$mp.xml" "header=Content-Type: application/xml" \
    "output=$mp.answer"
  : >"$mp.answer"
  bs_curl_exec
  end=$BS_CURL_END
  code='' ex=''
  read -r code _ ex _ <"$BS_CURL_LIST.out" || true
  answer=
  read -r -d '' answer <"$mp.answer" || true
  if [[ $ex != 0 || $code != 2* || $answer == *\<Error\>* ]]; then
    bs_s3_multipart_failed "$w" "$start" "$end" "CompleteMultipartUpload of $key" "$BS_CURL_LIST" "$mp.answer"
    bs_s3_abort "$w" "$key" "$url" "$id" "$qid"
    return 0
  fi
  printf '%s\t%s\n' "$key" "$id" >>"$BS_REPDIR/uploads.ended"
  printf '%s %s %s %s 1\n' "$w" "$start" "$end" "$size" >>"$BS_REPDIR/ops.$w"
}

# bs_s3_multipart_failed WORKER START END WHAT [LIST ANSWER]: records a failed upload; the worker's first
# error (error.WORKER) says what failed, from the list's curl (-w line, messages) and the answer's S3 code.
bs_s3_multipart_failed() {
  local w=$1 what=$4 code='' ex='' msg='' answer=''
  printf '%s %s %s 0 0\n' "$w" "$2" "$3" >>"$BS_REPDIR/ops.$w"
  if [[ -s $BS_REPDIR/error.$w ]]; then return 0; fi
  if (($# > 4)); then
    read -r code _ ex _ _ _ msg <"$5.out" || true
    read -r -d '' answer <"$6" || true
    if [[ -z $ex ]]; then
      read -r msg <"$5.err" || true
      what+=": curl did not send it (exit $BS_CURL_RC)${msg:+: $msg}"
    elif [[ $ex != 0 ]]; then
      what+=": curl: $msg (exit $ex)"
    elif [[ $answer =~ \<Code\>([^<]+)\</Code\> ]]; then
      what+=": HTTP status $code, ${BASH_REMATCH[1]}"
    else
      what+=": HTTP status $code"
    fi
  fi
  printf '%s\n' "${what:0:500}" >"$BS_REPDIR/error.$w"
}

# bs_s3_abort WORKER KEY URL UPLOAD-ID QUERY-UPLOAD-ID: AbortMultipartUpload, untimed (what fails here,
# bs_s3_cleanup tries again).
bs_s3_abort() {
  local w=$1 code='' ex=''
  bs_curl_begin "$w"
  bs_curl_add 0 "url=$3?uploadId=$5" request=DELETE output=/dev/null
  bs_curl_exec
  read -r code _ ex _ <"$BS_CURL_LIST.out" || true
  if [[ $ex == 0 && $code == 2* ]]; then printf '%s\t%s\n' "$2" "$4" >>"$BS_REPDIR/uploads.ended"; fi
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
