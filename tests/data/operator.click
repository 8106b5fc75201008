// An operator's FastClick chain, to be rewritten for sharing (FlowMage Fig. 7)
fd0 :: FromDPDKDevice(0, MAXTHREADS 16, NDESC 256)
    -> Classifier(12/0800)
    -> MarkIPHeader(OFFSET 14)
    -> filter :: SimpleIPFilter()
    -> psd :: IPPortScanDetector(THRESHOLD 20)
    -> fc :: FlowCounter(SIZE 65536)
    -> td0 :: ToDPDKDevice(0);
