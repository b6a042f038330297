/// Bank statements for the finance module's tests (StatementImportTests) and its page's
/// (FinanceMonthBrowserTests).
public enum StatementFixtures {
    /// A statement as a Czech bank writes it (camt.053.001.02, a prefix on every element): a card
    /// payment, a salary, a pending entry, a batch of two transfers, a reversal.
    public static let camt = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- exported 2026-03-09 -->
        <ns2:Document xmlns:ns2="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
          <ns2:BkToCstmrStmt>
            <ns2:GrpHdr><ns2:MsgId>123</ns2:MsgId></ns2:GrpHdr>
            <ns2:Stmt>
              <ns2:Acct><ns2:Id><ns2:IBAN>CZ6508000000192000145399</ns2:IBAN></ns2:Id><ns2:Ccy>CZK</ns2:Ccy></ns2:Acct>
              <ns2:Ntry>
                <ns2:NtryRef>1</ns2:NtryRef>
                <ns2:Amt Ccy="CZK">249.90</ns2:Amt>
                <ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd>
                <ns2:Sts>BOOK</ns2:Sts>
                <ns2:BookgDt><ns2:Dt>2026-03-02</ns2:Dt></ns2:BookgDt>
                <ns2:AcctSvcrRef>26512345001</ns2:AcctSvcrRef>
                <ns2:NtryDtls><ns2:TxDtls>
                  <ns2:RltdPties><ns2:Cdtr><ns2:Nm>ALBERT CR &amp; SK</ns2:Nm></ns2:Cdtr></ns2:RltdPties>
                </ns2:TxDtls></ns2:NtryDtls>
              </ns2:Ntry>
              <ns2:Ntry>
                <ns2:Amt Ccy="CZK">42500.00</ns2:Amt>
                <ns2:CdtDbtInd>CRDT</ns2:CdtDbtInd>
                <ns2:Sts>BOOK</ns2:Sts>
                <ns2:BookgDt><ns2:Dt>2026-03-05</ns2:Dt></ns2:BookgDt>
                <ns2:AcctSvcrRef>26512345002</ns2:AcctSvcrRef>
                <ns2:NtryDtls><ns2:TxDtls>
                  <ns2:RltdPties><ns2:Dbtr><ns2:Nm>Employer s.r.o.</ns2:Nm></ns2:Dbtr></ns2:RltdPties>
                  <ns2:RmtInf><ns2:Ustrd><![CDATA[Mzda 02/2026]]></ns2:Ustrd></ns2:RmtInf>
                </ns2:TxDtls></ns2:NtryDtls>
              </ns2:Ntry>
              <ns2:Ntry>
                <ns2:Amt Ccy="CZK">99.00</ns2:Amt>
                <ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd>
                <ns2:Sts>PDNG</ns2:Sts>
                <ns2:BookgDt><ns2:Dt>2026-03-09</ns2:Dt></ns2:BookgDt>
              </ns2:Ntry>
              <ns2:Ntry>
                <ns2:Amt Ccy="CZK">1500.00</ns2:Amt>
                <ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd>
                <ns2:Sts>BOOK</ns2:Sts>
                <ns2:BookgDt><ns2:Dt>2026-03-06</ns2:Dt></ns2:BookgDt>
                <ns2:AcctSvcrRef>26512345003</ns2:AcctSvcrRef>
                <ns2:NtryDtls>
                  <ns2:TxDtls><ns2:AmtDtls><ns2:TxAmt><ns2:Amt Ccy="CZK">1000.00</ns2:Amt></ns2:TxAmt></ns2:AmtDtls>
                    <ns2:RmtInf><ns2:Ustrd>Nájem březen</ns2:Ustrd></ns2:RmtInf></ns2:TxDtls>
                  <ns2:TxDtls><ns2:AmtDtls><ns2:TxAmt><ns2:Amt Ccy="CZK">500.00</ns2:Amt></ns2:TxAmt></ns2:AmtDtls>
                    <ns2:RmtInf><ns2:Ustrd>Zálohy energie</ns2:Ustrd></ns2:RmtInf></ns2:TxDtls>
                </ns2:NtryDtls>
              </ns2:Ntry>
              <ns2:Ntry>
                <ns2:Amt Ccy="CZK">249.90</ns2:Amt>
                <ns2:CdtDbtInd>DBIT</ns2:CdtDbtInd>
                <ns2:RvslInd>true</ns2:RvslInd>
                <ns2:BookgDt><ns2:Dt>2026-03-07</ns2:Dt></ns2:BookgDt>
                <ns2:AcctSvcrRef>26512345004</ns2:AcctSvcrRef>
                <ns2:AddtlNtryInf>Storno platby kartou</ns2:AddtlNtryInf>
              </ns2:Ntry>
            </ns2:Stmt>
          </ns2:BkToCstmrStmt>
        </ns2:Document>
        """
}
