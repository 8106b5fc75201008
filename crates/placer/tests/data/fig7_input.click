// FlowMage Fig. 7: input FastClick configuration
fd0 :: FromDPDKDevice($port, MAXTHREADS 16, NDESC 256)
    -> Classifier(12/0800)
    -> MarkIPHeader(OFFSET 14)
    -> psd :: IPortScanDetector(SIZE 8000000)
    -> policer :: IPolicer(SIZE 8000000)
    -> flowCounter :: IFlowCounter(SIZE 64000000)
    -> td0 :: ToDPDKDevice($port, VERBOSE 99, TIMEOUT -1);
